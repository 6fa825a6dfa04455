import EmberCore
import EmberEngine
import Foundation
import Glibc
import Synchronization
import Testing

/// The real-time driver on its own thread: work submitted from many threads at once runs on the
/// engine's thread, in order per thread, exactly once.
@Suite struct EngineThreadTests {
    /// State only the engine's thread touches.
    final class Tally: @unchecked Sendable {
        var total = 0
        var lastBySender: [Int: Int] = [:]
        var outOfOrder = 0
        var engineThreads: Set<UInt> = []
    }

    @Test func submissionsFromManyThreadsRunOnceEachInOrderPerThread() {
        let engine = Engine(clock: SystemClock())
        let thread = EngineThread(engine: engine)
        thread.start()
        defer { thread.stop() }
        let tally = Tally()
        let senders = 8
        let perSender = 2_000
        let finished = Atomic<Int>(0)
        for sender in 0..<senders {
            Thread {
                for index in 0..<perSender {
                    thread.submit {
                        tally.total += 1
                        if let last = tally.lastBySender[sender], last != index - 1 { tally.outOfOrder += 1 }
                        tally.lastBySender[sender] = index
                        tally.engineThreads.insert(UInt(pthread_self()))
                    }
                }
                finished.add(1, ordering: .relaxed)
            }.start()
        }
        let deadline = Date().addingTimeInterval(30)
        while finished.load(ordering: .relaxed) < senders && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let total = thread.perform { tally.total }
        #expect(total == senders * perSender)
        #expect(thread.perform { tally.outOfOrder } == 0)
        let engineThread = thread.perform { UInt(pthread_self()) }
        #expect(thread.perform { tally.engineThreads } == [engineThread])
        #expect(engineThread != UInt(pthread_self()))
    }

    @Test func timersFireOnTheEngineThreadWhileItIdles() {
        let engine = Engine(clock: SystemClock())
        let thread = EngineThread(engine: engine)
        thread.start()
        defer { thread.stop() }
        let fired = Atomic<Int>(0)
        thread.submit { engine.schedule(after: 30) { fired.add(1, ordering: .relaxed) } }
        let deadline = Date().addingTimeInterval(10)
        while fired.load(ordering: .relaxed) == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(fired.load(ordering: .relaxed) == 1)
    }

    @Test func stopRunsWhatWasSubmittedBeforeAndEndsTheTick() {
        final class Ticker: TickParticipant, @unchecked Sendable {
            var work = 0
            var ended = 0
            var hasTickWork: Bool { work > 0 }
            func endTick() {
                if work > 0 { ended += 1 }
                work = 0
            }
        }
        let engine = Engine(clock: SystemClock())
        let ticker = Ticker()
        engine.add(ticker)
        let thread = EngineThread(engine: engine)
        thread.start()
        for _ in 0..<100 { thread.submit { ticker.work += 1 } }
        thread.stop()
        #expect(ticker.work == 0)
        #expect(ticker.ended >= 1)
    }

    @Test("run(_:) runs at once on the caller's thread while the engine idles, ends the tick, and keeps the order of earlier submissions")
    func runAtOnceWhenIdle() {
        final class Log: TickParticipant, @unchecked Sendable {
            var entries: [String] = []
            var pending = false
            var hasTickWork: Bool { pending }
            func endTick() {
                if pending { entries.append("tick") }
                pending = false
            }
        }
        let engine = Engine(clock: SystemClock())
        let log = Log()
        engine.add(log)
        let thread = EngineThread(engine: engine)
        thread.start()
        defer { thread.stop() }
        // Until the thread has started and sleeps.
        _ = thread.perform { 0 }
        Thread.sleep(forTimeInterval: 0.05)
        let caller = UInt(pthread_self())
        let ranOn = Atomic<UInt>(0)
        thread.run {
            ranOn.store(UInt(pthread_self()), ordering: .relaxed)
            log.entries.append("run")
            log.pending = true
        }
        // It ran, and its tick ended, before run returned.
        #expect(ranOn.load(ordering: .relaxed) == caller)
        #expect(thread.perform { log.entries } == ["run", "tick"])
        // From inside the engine's own work it submits (no deadlock), after what is running.
        let inner = Atomic<Int>(0)
        thread.perform {
            thread.run { inner.store(2, ordering: .relaxed) }
            inner.store(1, ordering: .relaxed)
        }
        let deadline = Date().addingTimeInterval(10)
        while inner.load(ordering: .relaxed) != 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(inner.load(ordering: .relaxed) == 2)
    }

    @Test("a timer that work run at once schedules sooner than the sleeping thread meant to wake still fires on time")
    func runWakesTheThreadForASoonerTimer() {
        let engine = Engine(clock: SystemClock())
        let thread = EngineThread(engine: engine)
        thread.start()
        defer { thread.stop() }
        _ = thread.perform { 0 }
        Thread.sleep(forTimeInterval: 0.05)
        // The thread sleeps (up to a second: nothing is scheduled); the timer is due in 30 ms.
        let fired = Atomic<Int64>(0)
        let start = Date()
        thread.run { engine.schedule(after: 30) { fired.store(Int64(Date().timeIntervalSince(start) * 1000), ordering: .relaxed) } }
        let deadline = Date().addingTimeInterval(10)
        while fired.load(ordering: .relaxed) == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(fired.load(ordering: .relaxed) > 0)
        #expect(fired.load(ordering: .relaxed) < 500, "fired after \(fired.load(ordering: .relaxed)) ms: the sleeping thread was not woken")
    }

    @Test("run(_:) from many threads at once: each runs exactly once, in order per thread, never two at a time")
    func runFromManyThreads() {
        final class Counter: @unchecked Sendable {
            var total = 0
            var inside = 0
            var overlaps = 0
            var lastBySender: [Int: Int] = [:]
            var outOfOrder = 0
        }
        let engine = Engine(clock: SystemClock())
        let thread = EngineThread(engine: engine)
        thread.start()
        defer { thread.stop() }
        let counter = Counter()
        let senders = 6
        let perSender = 2_000
        let finished = Atomic<Int>(0)
        for sender in 0..<senders {
            Thread {
                for index in 0..<perSender {
                    let work: @Sendable () -> Void = {
                        counter.inside += 1
                        if counter.inside > 1 { counter.overlaps += 1 }
                        counter.total += 1
                        if let last = counter.lastBySender[sender], last != index - 1 { counter.outOfOrder += 1 }
                        counter.lastBySender[sender] = index
                        counter.inside -= 1
                    }
                    if index % 3 == 0 { thread.submit(work) } else { thread.run(work) }
                }
                finished.add(1, ordering: .relaxed)
            }.start()
        }
        let deadline = Date().addingTimeInterval(30)
        while finished.load(ordering: .relaxed) < senders && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(thread.perform { counter.total } == senders * perSender)
        #expect(thread.perform { counter.outOfOrder } == 0)
        #expect(thread.perform { counter.overlaps } == 0)
    }

    #if DEBUG
    /// Debug builds check the engine's confinement, as swift-nio's `NIOLoopBound` checks its
    /// event loop: a thread that does not hold an engine an ``EngineThread`` runs stops the
    /// process when it touches the engine's state; the same call submitted runs.
    @Test("in debug builds, scheduling on an engine an EngineThread runs, from another thread, stops the process")
    func touchingTheEngineFromAnotherThreadStops() async {
        await #expect(processExitsWith: .failure) {
            let thread = EngineThread(engine: Engine(clock: SystemClock()))
            thread.start()
            thread.engine.schedule(after: 10) {}
        }
        await #expect(processExitsWith: .success) {
            let thread = EngineThread(engine: Engine(clock: SystemClock()))
            thread.start()
            let engine = thread.engine
            thread.perform { engine.schedule(after: 10) {} }
            thread.stop()
            // Stopped, the engine is its owner's again.
            engine.schedule(after: 10) {}
        }
    }
    #endif
}

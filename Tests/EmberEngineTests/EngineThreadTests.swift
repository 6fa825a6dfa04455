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
}

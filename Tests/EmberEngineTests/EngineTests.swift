import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberTestSupport
import Foundation
import Testing

/// The engine's loop: ordering, ticks, callbacks, re-entrancy, interruption and deadlines, and
/// determinism of a whole instance in virtual time.
@Suite struct EngineTests {
    /// A participant that counts its ticks.
    final class Ticker: TickParticipant {
        var work = 0
        var ticks: [Int] = []
        var hasTickWork: Bool { work > 0 }
        func endTick() {
            ticks.append(work)
            work = 0
        }
    }

    @Test func timersRunInTimeOrderAndInOrderOfSchedulingWithinATime() {
        let engine = Engine(clock: ManualClock(0))
        var log: [String] = []
        engine.schedule(at: 20) { log.append("b@20") }
        engine.schedule(at: 10) { log.append("a@10") }
        engine.schedule(at: 20) { log.append("c@20") }
        engine.schedule(at: 10, .message) { log.append("m@10") }
        #expect(engine.messagesInFlight == 1)
        #expect(engine.wait(until: { false }) == .wouldWaitForever)
        #expect(log == ["a@10", "m@10", "b@20", "c@20"])
        #expect(engine.now == 20)
        #expect(engine.messagesInFlight == 0)
    }

    @Test func aDeadlineInVirtualTimeCostsNoRealTimeAndRunsWhatIsDueBeforeIt() {
        let clock = ManualClock(1_000)
        let engine = Engine(clock: clock)
        var fired: [Int64] = []
        engine.schedule(after: 30_000) { fired.append(engine.now) }
        engine.schedule(after: 90_000) { fired.append(engine.now) }
        let started = Date()
        #expect(engine.wait(until: { false }, deadline: 61_000) == .timedOut)
        #expect(Date().timeIntervalSince(started) < 1)
        #expect(fired == [31_000])
        #expect(engine.now == 61_000)
        // advance runs what is due at the end of the interval too
        #expect(engine.advance(by: 30_000) == .satisfied)
        #expect(fired == [31_000, 91_000])
    }

    @Test func aRealTimeDeadlineSleepsUntilIt() {
        let engine = Engine(clock: SystemClock())
        let started = engine.now
        #expect(engine.wait(until: { false }, deadline: started + 120) == .timedOut)
        let elapsed = engine.now - started
        #expect(elapsed >= 120 && elapsed < 2_000)
    }

    @Test func nothingLeftToHappenIsWouldWaitForeverNotAHang() {
        let engine = Engine(clock: SystemClock())
        #expect(engine.wait(until: { false }) == .wouldWaitForever)
        #expect(engine.wait(until: { true }) == .satisfied)
    }

    @Test func theTickEndsWhenNothingIsDueAndBeforeTheWaitIsSatisfied() {
        let engine = Engine(clock: ManualClock(0))
        let ticker = Ticker()
        engine.add(ticker)
        var done = false
        engine.schedule(at: 0) { ticker.work += 1 }
        engine.schedule(at: 0) { ticker.work += 1 }
        engine.schedule(at: 5) {
            ticker.work += 1
            done = true
        }
        #expect(engine.wait(until: { done }) == .satisfied)
        // the two items due at 0 share a tick; the one at 5 has its own, ended before the wait
        // returned although its condition held at once
        #expect(ticker.ticks == [2, 1])
    }

    @Test func callbacksRunAfterTheOperationThatPostedThemNeverInsideIt() {
        let engine = Engine(clock: ManualClock(0))
        var log: [String] = []
        engine.schedule(at: 0) {
            log.append("operation starts")
            engine.post { log.append("callback 1") }
            engine.post {
                log.append("callback 2")
                engine.post { log.append("callback 3, posted by 2") }
            }
            log.append("operation ends")
        }
        engine.runDue()
        #expect(log == ["operation starts", "operation ends", "callback 1", "callback 2", "callback 3, posted by 2"])
    }

    @Test func waitingInsideTheEnginesOwnWorkIsReentrant() {
        let engine = Engine(clock: ManualClock(0))
        var outcomes: [WaitOutcome] = []
        engine.schedule(at: 0) { outcomes.append(engine.wait(until: { true })) }
        engine.schedule(at: 0) { engine.post { outcomes.append(engine.wait(until: { true })) } }
        engine.runDue()
        #expect(outcomes == [.reentrant, .reentrant])
        #expect(engine.wait(until: { true }) == .satisfied)
    }

    @Test("serving submissions runs only what other threads submitted, and ends its tick; nothing inside the engine's own work")
    func servingSubmissionsRunsNothingElse() {
        let engine = Engine(clock: ManualClock(0))
        let ticker = Ticker()
        engine.add(ticker)
        let log = LockedText()
        engine.schedule(at: 0) { log.append("timer;") }
        engine.post { log.append("callback;") }
        engine.postTask { log.append("task;") }
        engine.serveSubmissions()
        #expect(log.value.isEmpty && ticker.ticks.isEmpty, "nothing submitted: nothing runs")
        nonisolated(unsafe) let participant = ticker
        let submitted = Thread {
            engine.submit {
                log.append("submitted;")
                participant.work += 1
            }
        }
        submitted.start()
        while !engine.hasSubmissions { usleep(1_000) }
        engine.serveSubmissions()
        #expect(log.value == "submitted;")
        #expect(ticker.ticks == [1], "the tick the submission made ended (its commit, its answers)")
        // Inside an operation (a message, a timer) it waits like any other submission.
        engine.schedule(at: 0) {
            engine.submit { log.append("second;") }
            engine.serveSubmissions()
            log.append("inside;")
        }
        engine.runDue()
        #expect(log.value == "submitted;callback;task;timer;inside;second;")
    }

    @Test func tasksMayWaitAndRunOneAtATime() {
        let engine = Engine(clock: ManualClock(0))
        var log: [String] = []
        engine.postTask {
            log.append("task 1 waits")
            let outcome = engine.wait(until: { false }, deadline: engine.now + 100)
            log.append("task 1 done: \(outcome)")
        }
        engine.postTask { log.append("task 2 at \(engine.now)") }
        engine.schedule(after: 50) { log.append("timer at 50") }
        engine.runDue()
        // task 2 waited for task 1 even while task 1 waited; the timer ran during the wait
        #expect(log == ["task 1 waits", "timer at 50", "task 1 done: timedOut", "task 2 at 100"])
    }

    @Test func anInterruptEndsAWaitOnceAndIsConsumed() {
        let engine = Engine(clock: ManualClock(0))
        engine.schedule(after: 10) { engine.interrupt() }
        engine.schedule(after: 1_000) {}
        #expect(engine.wait(until: { false }) == .interrupted)
        #expect(engine.now == 10)
        #expect(!engine.isInterruptPending)
        #expect(engine.wait(until: { false }) == .wouldWaitForever)
        #expect(engine.now == 1_000)
    }

    @Test func anInterruptFromAnotherThreadWakesASleepingRealTimeWait() {
        let engine = Engine(clock: SystemClock())
        engine.schedule(after: 60_000) {}
        let started = engine.now
        let interrupter = Thread { [engine] in
            Thread.sleep(forTimeInterval: 0.05)
            engine.interrupt()
        }
        interrupter.start()
        #expect(engine.wait(until: { false }) == .interrupted)
        #expect(engine.now - started < 5_000)
    }

    @Test func aListenerThatWritesDoesNotRecurse() throws {
        let ember = Ember(clock: ManualClock(), random: SeededRandom(seed: 3))
        let client = try ember.client(named: "main")
        try ember.flush()
        let counter = try client.reference("n")
        try counter.setValue(.int(0))
        var depth = 0
        var deepest = 0
        var log: [String] = []
        _ = counter.query.observe([.value]) { event in
            guard case .data(_, let snapshot, _) = event, case .int(let n) = snapshot.value else { return }
            depth += 1
            deepest = max(deepest, depth)
            defer { depth -= 1 }
            log.append("saw \(n)")
            guard n < 3 else { return }
            try? counter.setValue(.int(n + 1))
            log.append("set \(n + 1) returned")
        }
        // the initial event was delivered as observe returned (the caller is outside the engine)
        #expect(log == ["saw 0", "set 1 returned", "saw 1", "set 2 returned", "saw 2", "set 3 returned", "saw 3"])
        #expect(deepest == 1)
        try ember.flush()
        #expect(log.count == 7)
        #expect(ember.engine.wait(until: { true }) == .satisfied)
    }

    @Test func theSameSeedGivesTheSameEventLog() throws {
        let first = try eventLog(seed: 11)
        let second = try eventLog(seed: 11)
        #expect(first == second)
        #expect(first.count > 100)
        #expect(try eventLog(seed: 12) != first)
    }

    /// A run of random writes, drops, offline spells and time on three clients with latency,
    /// as one log of every event with the virtual time it happened at.
    private func eventLog(seed: UInt64) throws -> [String] {
        var random = SeededRandom(seed: seed)
        let ember = Ember(
            clock: ManualClock(), random: SeededRandom(seed: seed &+ 1), disconnectTimeout: 2_000)
        ember.latency = 7
        var log: [String] = []
        let names = ["a", "b", "c"]
        let clients = try names.map { try ember.client(named: $0) }
        for (name, client) in zip(names, clients) {
            _ = try client.reference("room").query.observe([.childAdded, .childChanged, .childRemoved, .value]) { event in
                guard case .data(let type, let snapshot, let previous) = event else { return }
                log.append("\(ember.clock.now()) \(name) \(type) \(snapshot.key ?? "/") \(previous ?? "-") \(snapshot.value.serialized())")
            }
        }
        for _ in 0..<300 {
            let client = clients[Int(random.next() % 3)]
            switch random.next() % 10 {
            case 0: ember.drop(client.name)
            case 1: client.goOffline()
            case 2: client.goOnline()
            case 3: try ember.advance(by: Int64(random.next() % 3_000))
            default:
                let reference = try client.reference("room/k\(random.next() % 6)")
                if random.next() % 4 == 0 {
                    try reference.removeValue()
                } else {
                    try reference.setValue(.int(Int64(random.next() % 100)))
                }
            }
            try ember.advance(by: Int64(random.next() % 20))
        }
        for client in clients { client.goOnline() }
        try ember.advance(by: 120_000)
        return log
    }
}

import EmberCore
import EmberEngine
import EmberTestSupport
import Testing

/// The engine's queue against a plain model: items run by time, then in order of scheduling.
@Suite struct WorkQueueTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func itemsRunByTimeThenBySchedulingOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let engine = Engine(clock: ManualClock(0))
        var ran: [Int] = []
        var model: [(time: Int64, index: Int)] = []
        for index in 0..<2_000 {
            let time = Int64(random.next() % 50)
            model.append((time, index))
            engine.schedule(at: time, random.next() % 2 == 0 ? .message : .timer) { ran.append(index) }
        }
        #expect(engine.scheduledCount == 2_000)
        #expect(engine.wait(until: { false }) == .wouldWaitForever)
        let expected = model.sorted { $0.time != $1.time ? $0.time < $1.time : $0.index < $1.index }.map(\.index)
        #expect(ran == expected)
        #expect(engine.messagesInFlight == 0)
    }

    /// Messages mostly in time order (a link's fixed latency) take the queue's first-in-first-out
    /// run; timers and a message due earlier than the run's last take the heap. The order is the
    /// same as one heap's.
    @Test(arguments: [6, 7, 8] as [UInt64])
    func messagesInTimeOrderAndTimersInterleave(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let engine = Engine(clock: ManualClock(0))
        var ran: [Int] = []
        var model: [(time: Int64, index: Int)] = []
        var messageTime: Int64 = 0
        for index in 0..<3_000 {
            let time: Int64
            let kind: WorkKind
            switch random.next() % 10 {
            case 0, 1:
                time = Int64(random.next() % 400)
                kind = .timer
            case 2:
                time = max(0, messageTime - Int64(random.next() % 20))
                kind = .message
            default:
                messageTime += Int64(random.next() % 2)
                time = messageTime
                kind = .message
            }
            model.append((time, index))
            engine.schedule(at: time, kind) { ran.append(index) }
        }
        #expect(engine.wait(until: { false }) == .wouldWaitForever)
        let expected = model.sorted { $0.time != $1.time ? $0.time < $1.time : $0.index < $1.index }.map(\.index)
        #expect(ran == expected)
        #expect(engine.messagesInFlight == 0)
    }
}

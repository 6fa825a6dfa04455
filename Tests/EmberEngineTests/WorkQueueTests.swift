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
}

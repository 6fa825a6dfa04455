@testable import EmberClient
import EmberCore
import EmberInstance
import EmberSync
import EmberTestSupport
import Testing

/// Requests a lost connection takes with it are answered in the order they were made (they
/// were answered in the order of a dictionary); the table is a window of slots, checked here
/// against a dictionary.
@Suite("RequestTable")
struct RequestTableTests {
    @Test("onDisconnect requests in flight when the connection goes complete with disconnected, in the order made")
    func lostRequestsInOrder() throws {
        let (ember, _) = makeEmber(latency: 10)
        let main = client(ember, "main")
        try ember.flush()
        var completed: [Int] = []
        for index in 0..<30 {
            try ref(main, "presence/\(index)").onDisconnect().setValue(.bool(false)) { error in
                if error?.code == "disconnected" { completed.append(index) }
            }
        }
        main.goOffline()
        try ember.flush()
        #expect(completed == Array(0..<30))
    }

    /// The write a request means, or `-1` for another kind.
    private static func number(_ request: PendingRequest?) -> Int? {
        guard let request else { return nil }
        guard case .write(let id) = request else { return -1 }
        return id.rawValue
    }

    @Test("answers in any order take each request once; numbers handed out and not sent are unknown")
    func randomAgainstDictionary() {
        for seed in UInt64(1)...5 {
            var random = SeededRandom(seed: seed)
            var table = RequestTable()
            var model: [Int: Int] = [:]
            var order: [Int] = []
            for _ in 0..<4_000 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5:
                    let id = table.newID()
                    // Now and then a number goes unsent (no connection).
                    guard Int.random(in: 0..<8, using: &random) != 0 else { continue }
                    table.sent(id, as: .write(WriteID(id)))
                    model[id] = id
                    order.append(id)
                case 5..<8 where !order.isEmpty:
                    // Mostly the oldest answer, sometimes one further on.
                    let index = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<order.count, using: &random) : 0
                    let id = order.remove(at: index)
                    #expect(Self.number(table.take(id)) == model.removeValue(forKey: id), "seed \(seed): request \(id)")
                    #expect(table.take(id) == nil, "seed \(seed): request \(id) answered twice")
                case 8:
                    // An answer for a number never sent, or long since answered.
                    let id = Int.random(in: 0..<(table.newID() + 2), using: &random)
                    #expect(Self.number(table.take(id)) == model.removeValue(forKey: id), "seed \(seed): request \(id)")
                    order.removeAll { $0 == id }
                default:
                    if Int.random(in: 0..<200, using: &random) == 0 {
                        #expect(table.takeAll().map(Self.number) == model.keys.sorted().map { $0 }, "seed \(seed)")
                        model.removeAll()
                        order.removeAll()
                    }
                }
                #expect(table.count == model.count)
            }
            #expect(table.takeAll().map(Self.number) == model.keys.sorted().map { $0 }, "seed \(seed)")
        }
    }

    @Test("a request never answered does not keep every later number's slot")
    func straggler() {
        var table = RequestTable()
        let lost = table.newID()
        table.sent(lost, as: .unlisten)
        for _ in 0..<10_000 {
            let id = table.newID()
            table.sent(id, as: .write(WriteID(id)))
            #expect(Self.number(table.take(id)) == id)
        }
        #expect(table.windowLength <= RequestTable.thinningFloor + 1)
        #expect(table.count == 1)
        // Answered late, it is still known; then the window is empty.
        #expect(Self.number(table.take(lost)) == -1)
        #expect(table.count == 0)
        let id = table.newID()
        table.sent(id, as: .resume)
        #expect(table.takeAll().count == 1)
    }

    @Test("many requests in flight keep their slots and come back in order")
    func manyInFlight() {
        var table = RequestTable()
        var ids: [Int] = []
        for _ in 0..<5_000 {
            let id = table.newID()
            table.sent(id, as: .write(WriteID(id)))
            ids.append(id)
        }
        #expect(table.windowLength == 5_000)
        // Every other one answered: the rest come back in the order sent.
        for id in ids where id % 2 == 0 { #expect(Self.number(table.take(id)) == id) }
        #expect(table.takeAll().map(Self.number) == ids.filter { $0 % 2 != 0 }.map { $0 })
        #expect(table.count == 0)
    }
}

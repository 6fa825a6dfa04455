import EmberClient
import EmberCore
import EmberInstance
import EmberTestSupport
import Testing

/// Gets made while offline go out, and are answered, in the order made when the connection
/// comes (they went in the order of a dictionary).
@Suite("PendingGets")
struct PendingGetsTests {
    @Test("gets waiting for the connection are sent and answered in the order made")
    func waitingGetsInOrder() throws {
        let (ember, _) = makeEmber(latency: 10)
        let writer = client(ember, "writer")
        for index in 0..<30 { try ref(writer, "items/\(index)").setValue(.int(Int64(index))) }
        try ember.flush()
        let main = client(ember, "main", startOffline: true)
        var answered: [JSONValue] = []
        for index in 0..<30 {
            ref(main, "items/\(index)").query.getData(connectTimeout: 60_000) { result in
                if case .success(let snapshot) = result { answered.append(snapshot.value) }
            }
        }
        #expect(answered.isEmpty, "nothing cached: they wait for the connection")
        main.goOnline()
        try ember.flush()
        #expect(answered == (0..<30).map { JSONValue.int(Int64($0)) })
    }
}

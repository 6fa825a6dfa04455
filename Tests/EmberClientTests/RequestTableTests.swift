import EmberClient
import EmberCore
import EmberInstance
import EmberTestSupport
import Testing

/// Requests a lost connection takes with it are answered in the order they were made (they
/// were answered in the order of a dictionary).
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
}

@testable import EmberClient
import EmberCore
import EmberInstance
import EmberSync
import EmberTestSupport
import Testing

/// Requests a lost connection takes with it are answered in the order they were made (they
/// were answered in the order of a dictionary). The window itself: `NumberedSlotsTests`.
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

    @Test("a request never answered is still known after thousands answered, and the window stays short")
    func unansweredRequest() {
        var table = RequestTable()
        let lost = table.newID()
        table.sent(lost, as: .unlisten)
        for _ in 0..<5_000 {
            let id = table.newID()
            table.sent(id, as: .write(WriteID(id)))
            guard case .write(let write)? = table.take(id) else {
                Issue.record("request \(id) not found")
                return
            }
            #expect(write == WriteID(id))
        }
        #expect(table.windowLength <= NumberedSlots<PendingRequest>.thinningFloor + 1)
        guard case .unlisten? = table.take(lost) else {
            Issue.record("the unanswered request is lost")
            return
        }
        #expect(table.count == 0)
    }
}

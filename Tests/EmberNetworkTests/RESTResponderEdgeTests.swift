import EmberTestSupport
import Foundation
import Testing

/// ``RESTResponder`` and the event streams at their edges, against a real `ember serve` over raw
/// sockets (`Scenarios/edge.py`): bytes that are not UTF-8 are refused, not stored as U+FFFD; a
/// PUT that asks for the ETag of a location its client may not read is refused before it is
/// stored; an event stream whose client does not read is cut off past `--max-unsent`.
@Suite(.serialized)
struct RESTResponderEdgeTests {
    @Test("a body or a path that is not UTF-8 is answered 400 and nothing is stored")
    func utf8() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        ConnectionGateTests.expectPass("utf8", on: server)
    }

    @Test("a PUT asking for the ETag of a write-only location is refused before it is stored")
    func writeOnlyETag() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        ConnectionGateTests.expectPass("writeOnlyETag", on: server)
    }

    @Test("200 PUTs of 1 MB keep nothing once answered")
    func putsAreNotKept() throws {
        let server = try ServeProcess(["--quiet"])
        defer { server.stop() }
        ConnectionGateTests.expectPass("putMemory", on: server)
    }

    @Test("an event stream whose client never reads is closed past --max-unsent; the server does not hold every update")
    func slowStream() throws {
        let server = try ServeProcess(["--max-unsent", "16777216", "--quiet"])
        defer { server.stop() }
        ConnectionGateTests.expectPass("slowStream", on: server)
    }
}

import EmberTestSupport
import Testing

/// ``RealtimeFrameHandler`` against a real `ember serve` over raw sockets
/// (`Scenarios/edge.py badFrames`): frames RFC 6455 forbids fail the connection.
@Suite(.serialized)
struct RealtimeFrameHandlerTests {
    @Test("a frame with an RSV bit set, or an unmasked client frame, is answered with close code 1002")
    func badFrames() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        ConnectionGateTests.expectPass("badFrames", on: server)
    }
}

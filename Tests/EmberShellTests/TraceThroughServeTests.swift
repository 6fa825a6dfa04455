import EmberTestSupport
import Foundation
import Testing

/// `trace` through `ember --connect` to `ember serve`: the messages a WebSocket carries, as the
/// embedded trace shows them, and `ember serve --trace` logs the same per connection (issue 39).
@Suite(.serialized)
struct TraceThroughServeTests {
    @Test("trace shows the WebSocket's messages of a --connect client, and ember serve --trace logs them per connection")
    func traceThroughTheNetwork() throws {
        let server = try ServeProcess(["--trace"])
        defer { server.stop() }
        let result = EmberProcess.run([
            "--connect", "ws://127.0.0.1:\(server.port)/?ns=default", "--no-rc", "-q",
            "-c", "trace on", "-c", "watch /chat value", "-c", "set /chat/m1 'hi'", "-c", "get /chat", "-c", "trace off",
        ])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        // In order: the listen and its answer, then the put (sent as the write is made, beside
        // its local event), the server's update and the answer to the put.
        let listen = lines.firstIndex { $0.hasPrefix("→ main #") && $0.contains(" q /chat") }
        let listened = lines.firstIndex { $0.hasPrefix("← main #") && $0.hasSuffix(" ok") }
        let local = lines.firstIndex { $0 == "[1] value /chat: {\"m1\":\"hi\"}  (main, local)" }
        let put = lines.firstIndex { $0.hasPrefix("→ main #") && $0.contains(" p /chat/m1 \"hi\"") }
        let update = lines.firstIndex { $0 == "← main d /chat/m1 \"hi\"" }
        #expect(listen != nil && listened != nil && local != nil && put != nil && update != nil, "\(result.output)")
        if let listen, let listened, let local, let put, let update {
            #expect(listen < listened && listened < local && listened < put && put < update, "\(result.output)")
        }
        #expect(lines.contains("[1] value /chat: null  (main, server)"), "\(result.output)")
        // The server's log: the same messages, per connection.
        let deadline = Date().addingTimeInterval(5)
        while !server.log.contains("p /chat/m1") && Date() < deadline { usleep(50_000) }
        let log = server.log
        #expect(log.contains("→ connection ") && log.contains(" p /chat/m1 \"hi\""), "\(log)")
        #expect(log.contains("← connection ") && log.contains(" d /chat/m1 \"hi\""), "\(log)")
    }
}

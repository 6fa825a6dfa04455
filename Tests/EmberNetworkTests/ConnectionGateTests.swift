import EmberTestSupport
import Foundation
import Testing

/// ``ConnectionGate`` against a real `ember serve`, over raw sockets (`Scenarios/edge.py`):
/// connections that never finish a request head are closed by the head's deadline (not moved by
/// each byte), every connection counts against `--max-connections`, the soft limit of open
/// files is raised, and malformed HTTP is answered 400, 414 or 431 and closed.
@Suite(.serialized)
struct ConnectionGateTests {
    static func expectPass(_ scenario: String, on server: ServeProcess) {
        let result = EdgeScenario.run(scenario, on: server)
        #expect(result.status == 0, "scenario \(scenario) failed:\n\(result.output)\nserver log:\n\(server.log.suffix(3000))")
        #expect(result.output.contains("ok \(scenario)"), "\(result.output)")
    }

    @Test("a silent connection, a partial head, a trickled head and a stalled second head are closed within the deadline")
    func slowHeads() throws {
        let server = try ServeProcess(["--idle-timeout", "2"])
        defer { server.stop() }
        Self.expectPass("slowHeads", on: server)
    }

    @Test("1,050 silent connections under a soft limit of 1,024 files lock nobody out, and are closed")
    func manySilent() throws {
        let server = try ServeProcess(["--idle-timeout", "2", "--quiet"], softFileLimit: 1024)
        defer { server.stop() }
        Self.expectPass("manySilent", on: server)
    }

    @Test("every connection counts against --max-connections, not only WebSockets and streams")
    func counted() throws {
        let server = try ServeProcess(["--idle-timeout", "2", "--max-connections", "5"])
        defer { server.stop() }
        Self.expectPass("counted", on: server)
    }

    @Test("malformed HTTP is answered 400, 414 or 431 and the connection closed")
    func malformed() throws {
        let server = try ServeProcess()
        defer { server.stop() }
        Self.expectPass("malformed", on: server)
    }
}

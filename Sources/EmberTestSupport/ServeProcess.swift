import Foundation

/// A real `ember serve` on 127.0.0.1 and a port of its own choosing (`--port 0`), as users run
/// it, started for a test with its banner read; ``stop()`` (or the end of the value) stops it
/// with SIGTERM, a graceful stop.
public final class ServeProcess: Sendable {
    /// The built `ember`, next to the test executable (`swift test` builds every product).
    public static let executable = ChildProcess.built("ember")

    /// The port it listens on.
    public let port: Int
    /// What it printed when it started: where it listens and the URLs to use.
    public let banner: String
    private let child: ChildProcess

    /// Starts `ember serve --port 0 ARGUMENTS` (in memory unless the arguments say `--db`), with
    /// a temporary directory as its home, and waits (at most 20 s) for its banner. With
    /// `softFileLimit`, it starts with that soft limit of open files (`ulimit -Sn`), as a user's
    /// shell may give it.
    public init(_ arguments: [String] = [], softFileLimit: Int? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw ChildProcess.Failure(message: "ember is not built at \(Self.executable.path)")
        }
        let storage = arguments.contains("--db") ? [] : ["--memory"]
        let serve = [Self.executable.path, "serve", "--port", "0"] + storage + arguments
        // The shell sets the limit and becomes ember (exec): the process is the server.
        let command = softFileLimit.map { ["/bin/sh", "-c", "ulimit -Sn \($0) && exec \"$0\" \"$@\""] + serve } ?? serve
        child = try ChildProcess.start(command, environment: ["HOME": FileManager.default.temporaryDirectory.path])
        // The banner is whole once its `another ember:` line is.
        child.waitForOutput(timeout: 20) { text in
            text.range(of: "another ember:").map { text[$0.upperBound...].contains("\n") } ?? false
        }
        banner = child.output
        guard let port = ServeBanner.port(in: banner) else {
            child.stop()
            throw ChildProcess.Failure(message: "ember serve did not start: \(banner) \(child.errors)")
        }
        self.port = port
    }

    deinit { stop() }

    /// The server's process (its pid, whether it still runs).
    public var process: Process { child.process }

    /// The base URL of the server.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// What the server wrote on its standard error so far: its log.
    public var log: String { child.errors }

    /// Stops the server with SIGTERM and waits for it (SIGKILL after 10 s).
    /// - Returns: its exit status.
    @discardableResult
    public func stop() -> Int32 {
        child.stop(grace: 10)
    }
}

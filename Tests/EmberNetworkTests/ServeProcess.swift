import EmberTestSupport
import Foundation
import Testing

/// A real `ember serve` process on 127.0.0.1 and a free port, as users run it; stopped with
/// SIGTERM (a graceful stop) by ``stop()``.
final class ServeProcess: @unchecked Sendable {
    /// The built `ember`, next to the test executable (`swift test` builds every product).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("ember")

    let process = Process()
    /// The port it listens on.
    private(set) var port = 0
    private let output = Pipe()
    private let errors = Pipe()
    private let errorText = LockedText()

    /// Starts `ember serve --port 0 ARGUMENTS` (in memory unless the arguments say `--db`) and
    /// waits (at most 20 s) until it says where it listens. With `softFileLimit`, it starts
    /// with that soft limit of open files (`ulimit -Sn`), as a user's shell may give it.
    init(_ arguments: [String] = [], softFileLimit: Int? = nil) throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "ember is not built at \(Self.executable.path)")
        let storage = arguments.contains("--db") ? [] : ["--memory"]
        if let softFileLimit {
            // The shell sets the limit and becomes ember (exec): the process is the server.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -Sn \(softFileLimit) && exec \"$0\" \"$@\"", Self.executable.path, "serve", "--port", "0"]
                + storage + arguments
        } else {
            process.executableURL = Self.executable
            process.arguments = ["serve", "--port", "0"] + storage + arguments
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = FileManager.default.temporaryDirectory.path
        process.environment = environment
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        errors.fileHandleForReading.readabilityHandler = { [errorText] handle in errorText.append(handle.availableData) }
        try process.run()
        let (port, text) = ServeBanner.waitForPort(in: output.fileHandleForReading, of: process, timeout: 20)
        if let port {
            self.port = port
            return
        }
        stop()
        Issue.record("ember serve did not start: \(text) \(errorText.value)")
        throw ServeProcessError(message: "ember serve did not start")
    }

    /// The base URL of the server.
    var url: String { "http://127.0.0.1:\(port)" }

    /// What the server wrote on stderr so far.
    var log: String { errorText.value }

    /// Stops the server with SIGTERM and waits for it (SIGKILL after 10 s).
    /// - Returns: its exit status.
    @discardableResult
    func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        errors.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }

    deinit { stop() }
}

struct ServeProcessError: Error {
    let message: String
}

/// Text appended from one thread and read from another.
final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""

    func append(_ data: Data) {
        lock.lock()
        text += String(decoding: data, as: UTF8.self)
        lock.unlock()
    }

    var value: String {
        lock.lock()
        defer { lock.unlock() }
        return text
    }
}

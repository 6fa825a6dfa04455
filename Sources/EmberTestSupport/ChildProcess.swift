import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process of a test or a benchmark: a helper program (node, python3, curl, a shell) or
/// a built product (`ember`, `ember-harness`), its standard output and standard error read as
/// it writes them.
///
/// Both streams are read on threads of their own from the start, so a child that writes much to
/// either never blocks on a full pipe (issue 37: reading standard output to its end first left a
/// child that wrote much to standard error blocked, and the test with it); ``output`` and
/// ``errors`` say what it wrote so far.
///
/// Built on Foundation's `Process`, not swift-subprocess (which the package set has): that API is
/// `async` and keeps a running child inside the closure that started it, while these tests are
/// synchronous and hold long-lived children (a server, a watcher, a writer killed mid-stream)
/// across many steps, threads and helper functions; and it would add two packages
/// (swift-subprocess and swift-system) to build, on two cores, for the tests alone.
public final class ChildProcess: @unchecked Sendable {
    /// What a child reads on its standard input.
    public enum Input: Sendable {
        /// Nothing: `/dev/null`.
        case none
        /// This text, then the end of the input.
        case text(String)
        /// A pipe the caller writes to through ``ChildProcess/input`` (and closes to end it).
        case pipe
    }

    /// How a child that ran to its end ended: its status and everything it wrote.
    public struct Result: Sendable {
        /// The exit status, or the number of the signal that ended it; -1 when it did not start.
        public let status: Int32
        /// Its standard output (with its standard error, when they were merged).
        public let output: String
        /// Its standard error (empty when merged into the output).
        public let error: String
    }

    /// A child that did not start, or a helper it needs that is not there.
    public struct Failure: Error, CustomStringConvertible {
        public let message: String

        public init(message: String) { self.message = message }

        public var description: String { message }
    }

    /// The running process: its pid, whether it runs, and, once it has ended, its status.
    public let process: Process
    /// The writing end of the child's standard input, when it was started with `.pipe`.
    public let input: FileHandle?
    private let outputText = LockedText()
    private let errorText = LockedText()
    /// Entered while standard output is open; its reader leaves at the end of the stream.
    private let outputOpen = DispatchGroup()
    /// Entered while standard error is open (never entered when it is merged).
    private let errorsOpen = DispatchGroup()

    /// The product `name` built next to the test executable (`swift test` builds every product).
    public static func built(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Starts `command`: its first element is the program, a path or (without a `/`) a name
    /// looked up on the PATH, and the rest its arguments. The caller ends it (``finish(timeout:)``,
    /// ``stop(grace:)``); one still running when the handle goes is killed.
    /// - Parameters:
    ///   - environment: changes to this process's environment: a value sets a variable, `nil`
    ///     removes it.
    ///   - directory: the working directory (this process's when `nil`).
    ///   - input: what the child reads.
    ///   - mergingErrors: standard error goes to the same pipe as standard output (one text, in
    ///     the order written).
    public static func start(
        _ command: [String], environment: [String: String?] = [:], directory: URL? = nil, input: Input = .none,
        mergingErrors: Bool = false
    ) throws -> ChildProcess {
        try ChildProcess(command, environment: environment, directory: directory, input: input, mergingErrors: mergingErrors)
    }

    private init(
        _ command: [String], environment: [String: String?] = [:], directory: URL? = nil, input: Input = .none,
        mergingErrors: Bool = false
    ) throws {
        guard let program = command.first else { throw Failure(message: "no command to start") }
        let process = Process()
        if program.contains("/") {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(command.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
        }
        var variables = ProcessInfo.processInfo.environment
        for (name, value) in environment { variables[name] = value }
        process.environment = variables
        if let directory { process.currentDirectoryURL = directory }

        let output = Pipe()
        let errors = mergingErrors ? output : Pipe()
        process.standardOutput = output
        process.standardError = errors
        switch input {
        case .none:
            process.standardInput = FileHandle.nullDevice
            self.input = nil
        case .text(let text):
            // From a file, not a pipe: a child that does not read it blocks no writer.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("ember-input-\(UUID().uuidString)")
            try Data(text.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            process.standardInput = try FileHandle(forReadingFrom: file)
            self.input = nil
        case .pipe:
            let pipe = Pipe()
            process.standardInput = pipe
            self.input = pipe.fileHandleForWriting
        }
        self.process = process
        try process.run()
        Self.drain(output.fileHandleForReading, into: outputText, open: outputOpen)
        if !mergingErrors { Self.drain(errors.fileHandleForReading, into: errorText, open: errorsOpen) }
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Runs `command` to its end, at most `timeout` seconds (then it is killed with SIGKILL),
    /// reading its output and errors at once. A command that cannot start ends with status -1
    /// and the reason in its error (and its output, when merged). The parameters are
    /// ``start(_:environment:directory:input:mergingErrors:)``'s.
    public static func run(
        _ command: [String], environment: [String: String?] = [:], directory: URL? = nil, input: Input = .none,
        mergingErrors: Bool = false, timeout: TimeInterval = 300
    ) -> Result {
        do {
            return try start(command, environment: environment, directory: directory, input: input, mergingErrors: mergingErrors)
                .finish(timeout: timeout)
        } catch {
            let reason = "cannot start \(command.first ?? "nothing"): \(error)"
            return Result(status: -1, output: mergingErrors ? reason : "", error: reason)
        }
    }

    /// The child's process identifier.
    public var pid: Int32 { process.processIdentifier }

    /// Whether the child still runs.
    public var isRunning: Bool { process.isRunning }

    /// What the child wrote on its standard output so far (with its errors, when merged).
    public var output: String { outputText.value }

    /// What the child wrote on its standard error so far.
    public var errors: String { errorText.value }

    /// Sends `signal` to the child, if it still runs.
    public func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits at most `timeout` seconds for the child to end.
    /// - Returns: whether it ended.
    @discardableResult
    public func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }

    /// Waits at most `timeout` seconds until what the child wrote on its standard output
    /// satisfies `done`, or the output ends.
    /// - Returns: whether it does.
    @discardableResult
    public func waitForOutput(timeout: TimeInterval, until done: (String) -> Bool) -> Bool {
        Self.wait(timeout: timeout, for: done, in: outputText, open: outputOpen)
    }

    /// Waits at most `timeout` seconds until the child's standard output holds `text`.
    /// - Returns: whether it does.
    @discardableResult
    public func waitForOutput(containing text: String, timeout: TimeInterval) -> Bool {
        waitForOutput(timeout: timeout) { $0.contains(text) }
    }

    /// Waits at most `timeout` seconds until the child's standard error holds `text`.
    /// - Returns: whether it does.
    @discardableResult
    public func waitForErrors(containing text: String, timeout: TimeInterval) -> Bool {
        Self.wait(timeout: timeout, for: { $0.contains(text) }, in: errorText, open: errorsOpen)
    }

    /// Waits at most `timeout` seconds for the child to end (then kills it with SIGKILL), and for
    /// its output and errors to end.
    /// - Returns: its status and everything it wrote.
    @discardableResult
    public func finish(timeout: TimeInterval = 300) -> Result {
        if !waitForExit(timeout: timeout) { send(SIGKILL) }
        process.waitUntilExit()
        // A grandchild that still holds a pipe would keep it open: wait for the streams' ends a
        // little only.
        _ = outputOpen.wait(timeout: .now() + 10)
        _ = errorsOpen.wait(timeout: .now() + 10)
        return Result(status: process.terminationStatus, output: outputText.value, error: errorText.value)
    }

    /// Stops the child with SIGTERM, then SIGKILL if it still runs after `grace` seconds, and
    /// waits for it.
    /// - Returns: its exit status (or the signal that ended it).
    @discardableResult
    public func stop(grace: TimeInterval = 10) -> Int32 {
        if process.isRunning {
            send(SIGTERM)
            if !waitForExit(timeout: grace) { send(SIGKILL) }
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Reads `handle` to its end on a thread of its own into `text`; `open` is entered until then.
    private static func drain(_ handle: FileHandle, into text: LockedText, open: DispatchGroup) {
        open.enter()
        Thread.detachNewThread {
            // read(2), not FileHandle.read(upToCount:), which waits for the whole count on a pipe.
            withExtendedLifetime(handle) {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                    if count > 0 {
                        text.append(Data(buffer[..<count]))
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
            }
            open.leave()
        }
    }

    private static func wait(timeout: TimeInterval, for done: (String) -> Bool, in text: LockedText, open: DispatchGroup) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !done(text.value) {
            if open.wait(timeout: .now()) == .success { return done(text.value) }
            if Date() >= deadline { return false }
            usleep(10_000)
        }
        return true
    }
}

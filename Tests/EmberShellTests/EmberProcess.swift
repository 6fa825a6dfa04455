import Foundation
import Testing

/// The built `ember` run as a process, as a user runs it: the tests that need the real binary
/// share this runner.
///
/// `swift test` builds every product, so the binary sits next to the test executable.
enum EmberProcess {
    /// The built `ember`, next to the test executable.
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("ember")

    /// Starts `ember` with `arguments`, its output and errors into pipes, its input from
    /// `input` (nothing when `nil`), with a home that holds no configuration.
    static func start(
        _ arguments: [String], input: Pipe? = nil, environment extra: [String: String] = [:]
    ) throws -> (process: Process, output: Pipe, error: Pipe) {
        try #require(
            FileManager.default.isExecutableFile(atPath: executable.path), "ember is not built at \(executable.path)")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = "/home/ada"
        environment["XDG_DATA_HOME"] = nil
        environment["XDG_CONFIG_HOME"] = nil
        process.environment = environment.merging(extra) { $1 }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        return (process, output, error)
    }

    /// Runs `ember` with `arguments` to the end; returns its status, stdout and stderr.
    /// Both pipes are read at once (issue 37: reading standard output to its end first left a
    /// child that wrote much to standard error blocked, and the test with it).
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        let process = try start(arguments, environment: environment)
        let errors = Thread.detachedReader(process.error.fileHandleForReading)
        let outData = process.output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.wait()
        process.process.waitUntilExit()
        return (process.process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}

extension Thread {
    /// Reads `handle` to its end on a thread of its own; `wait()` returns what it read.
    static func detachedReader(_ handle: FileHandle) -> PipeReader {
        let reader = PipeReader()
        Thread.detachNewThread { reader.finish(handle.readDataToEndOfFile()) }
        return reader
    }
}

/// What a reader thread read, handed over once it is done.
final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    func finish(_ read: Data) {
        data = read
        done.signal()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

import Foundation

/// Runs the helper programs of the network tests (node, python, curl, the shell) as separate
/// processes, bounded in time.
enum ProcessRun {
    /// Starts `arguments` (looked up on the PATH) in `directory`; output and errors go to the
    /// returned pipe, input is empty.
    static func start(_ arguments: [String], environment extra: [String: String] = [:], directory: URL? = nil) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(extra) { $1 }
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Runs `arguments` to the end, at most `timeout` seconds (then it is killed); returns its
    /// status and everything it printed.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, timeout: TimeInterval = 300
    ) -> (status: Int32, output: String) {
        let process: Process
        let output: Pipe
        do {
            (process, output) = try start(arguments, environment: environment, directory: directory)
        } catch {
            return (-1, "cannot start \(arguments.first ?? ""): \(error)")
        }
        let text = LockedText()
        output.fileHandleForReading.readabilityHandler = { handle in text.append(handle.availableData) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        text.append(output.fileHandleForReading.readDataToEndOfFile())
        return (process.terminationStatus, text.value)
    }
}

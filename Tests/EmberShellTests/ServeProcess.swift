import Foundation

/// `ember serve --memory --port 0 --quiet` and more, started for a test: the process, the port
/// it listens on and its banner. The caller stops it (`stop()`).
struct ServeProcess {
    let process: Process
    let port: Int
    let banner: String

    /// Starts the server with `arguments` after `serve --memory --port 0 --quiet` and reads its
    /// banner (at most 20 s).
    static func start(_ arguments: [String] = []) throws -> ServeProcess {
        let server = Process()
        server.executableURL = EmberProcess.executable
        server.arguments = ["serve", "--memory", "--port", "0", "--quiet"] + arguments
        let banner = Pipe()
        server.standardOutput = banner
        server.standardError = FileHandle.nullDevice
        try server.run()
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("another ember:"), Date() < deadline {
            let data = banner.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let port = text.firstMatch(of: /listening on 127\.0\.0\.1:(\d+)/).flatMap({ Int($0.1) }) else {
            server.terminate()
            server.waitUntilExit()
            throw StartFailure(banner: text)
        }
        return ServeProcess(process: server, port: port, banner: text)
    }

    /// `ember serve` printed no port.
    struct StartFailure: Error, CustomStringConvertible {
        let banner: String
        var description: String { "ember serve printed no port: \(banner)" }
    }

    /// Kills the server and reaps it.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

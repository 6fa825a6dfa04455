import EmberClient
import EmberCore
import EmberInstance
import EmberNetwork
import EmberNetworkShared
import EmberWire
import Foundation
import Logging

/// `view`: the data viewer, in a browser. A session with its server embedded serves it on
/// 127.0.0.1 (the page `ember serve` answers at `/`, plus the session's clients and protocol
/// messages at `/.ember/session.json`); a session connected to a server prints that server's.
extension Shell {
    func view() throws(ShellError) -> CommandResult {
        if let viewer { return viewerResult(viewer.url, started: false) }
        if let remote = ember.remoteServer {
            guard let url = Self.pageAddress(ofRealtimeURL: remote.url) else {
                throw .command(ErrorCode.needsEmbeddedServer, "the server at \(remote.url) is reached through a local socket: view it from the terminal that holds the database")
            }
            return .report(text: "the server's viewer: \(url) (open it in a browser)", json: .object([("url", .string(url))]))
        }
        guard ember.administration != nil else { throw .command(ErrorCode.needsEmbeddedServer, "view needs a server") }
        let database = ServedDatabase(namespace: "default", owner: ember)
        database.sessionReport = { [weak self] since in self?.sessionReport(since: since) ?? "{}" }
        let listening = DispatchSemaphore(value: 0)
        let port = LockedPort()
        let failure = FailureMessage()
        let logger = Logger(label: "ember.view") { _ in SwiftLogNoOpLogHandler() }
        let task = Task.detached {
            do {
                try await NetworkServer.serveViewer(of: database, logger: logger) { number in
                    port.set(number)
                    listening.signal()
                }
            } catch {
                failure.set(SocketErrorText.describe(error))
                listening.signal()
            }
        }
        _ = listening.wait(timeout: .now() + 10)
        guard let number = port.value else {
            task.cancel()
            throw .command(ErrorCode.ioError, "the viewer could not listen: \(failure.value ?? "no port within 10 s")")
        }
        let url = "http://127.0.0.1:\(number)/"
        viewer = ViewerService(task: task, url: url)
        watchProtocolMessages()
        watchRuleChecks()
        return viewerResult(url, started: true)
    }

    private func viewerResult(_ url: String, started: Bool) -> CommandResult {
        let text = started
            ? "the viewer is at \(url) (open it in a browser; it runs while this session does)"
            : "the viewer is at \(url)"
        return .report(text: text, json: .object([("url", .string(url))]))
    }

    /// `ws://host:port/?ns=demo` → `http://host:port/?ns=demo` (`wss` → `https`); `nil` for a
    /// local socket.
    static func pageAddress(ofRealtimeURL url: String) -> String? {
        if url.hasPrefix("ws://") { return "http://" + url.dropFirst("ws://".count) }
        if url.hasPrefix("wss://") { return "https://" + url.dropFirst("wss://".count) }
        return nil
    }

    /// Stops serving the viewer.
    func stopViewer() {
        guard let viewer else { return }
        self.viewer = nil
        viewer.task.cancel()
        watchProtocolMessages()
        watchRuleChecks()
    }

    /// What the viewer's session panel shows (engine thread): every client's inspection, as
    /// `inspect --json` gives it, and the protocol messages after number `since`.
    func sessionReport(since: Int) -> String {
        let clients = ember.clientNames.map { name in inspectionJSON(of: name) }
        let (entries, next) = state.protocolLog.after(since)
        let messages = entries.map { entry in
            JSONValue.object([
                ("number", .int(Int64(entry.number))), ("client", .string(entry.client.rawValue)),
                ("direction", .string(entry.direction.rawValue)), ("time", .int(entry.time)),
                ("summary", .string(ProtocolSummary(client: entry.client.rawValue, direction: entry.direction, text: entry.text).text)),
            ])
        }
        let requests = state.ruleLog.suffix(50).map { client, check in ruleCheckJSON(check, client: client) }
        return JSONValue.object([
            ("clients", .array(clients)), ("messages", .array(messages)), ("next", .int(Int64(next))),
            ("rules", .array(Array(requests))),
        ]).serialized()
    }
}

/// A port number set on one thread and read on another.
private final class LockedPort: @unchecked Sendable {
    private let lock = NSLock()
    private var port: Int?
    func set(_ value: Int) { lock.withLock { port = value } }
    var value: Int? { lock.withLock { port } }
}

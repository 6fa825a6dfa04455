import EmberCore
import EmberEngine
import EmberInstance
import EmberNetwork
import Foundation
import Logging

/// The local socket of an interactive session on a database directory: a second `ember` on
/// the same directory connects through it (and says so) instead of being refused.
extension Shell {
    /// Starts serving the database on its directory's ``LocalSocket``, when the session holds
    /// a database directory (its server embedded). What arrives there runs on the session's
    /// engine, between commands and while the prompt waits.
    /// - Returns: the socket's path, once it listens; `nil` when there is nothing to serve or it
    ///   could not listen (the reason is printed).
    @discardableResult
    public func serveLocalSocket() -> String? {
        guard localSocket == nil, ember.embeddedServer != nil, case .directory(let directory, _) = ember.persistence else { return nil }
        let database = ServedDatabase(namespace: "default", owner: ember)
        let listening = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let logger = Logger(label: "ember.local") { _ in SwiftLogNoOpLogHandler() }
        let failure = FailureMessage()
        let task = Task.detached {
            do {
                try await NetworkServer.serveLocalSocket(of: database, directory: directory, logger: logger) { listening.signal() }
            } catch let error as NetworkError {
                failure.set(error.message)
                listening.signal()
            } catch {
                failure.set(SocketErrorText.describe(error))
                listening.signal()
            }
            ended.signal()
        }
        _ = listening.wait(timeout: .now() + 5)
        if let problem = failure.value {
            note("other terminals cannot connect (the local socket is not served: \(problem))", json: .object([("localSocket", .null)]))
            return nil
        }
        localSocket = LocalSocketService(task: task, ended: ended, path: LocalSocket.path(forDatabase: directory))
        return localSocket?.path
    }

    /// Stops serving the local socket: the connections through it end (their onDisconnect
    /// operations run on the server here), then the socket file goes.
    func stopLocalSocket() {
        guard let service = localSocket else { return }
        localSocket = nil
        service.task.cancel()
        // Run what the ending connections submit while waiting for the server to stop.
        let deadline = Date().addingTimeInterval(5)
        while service.ended.wait(timeout: .now() + .milliseconds(10)) == .timedOut && Date() < deadline {
            engine.runDue()
        }
        engine.runDue()
        settle()
    }
}

/// The server of an interactive session's local socket, running on a task of its own.
struct LocalSocketService {
    let task: Task<Void, Never>
    /// Signalled when the task is over.
    let ended: DispatchSemaphore
    let path: String
}

import EmberCore
import EmberEngine
import EmberInstance
import EmberNetwork
import EmberNetworkShared
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
    /// - Parameter waiting: wait until it listens (and say so when it cannot); a command-line
    ///   run starts it without waiting and says nothing.
    @discardableResult
    public func serveLocalSocket(waiting: Bool = true) -> String? {
        guard localSocket == nil, ember.administration != nil, case .directory(let directory, _) = ember.persistence else { return nil }
        let database = ServedDatabase(namespace: "default", owner: ember)
        let listening = DispatchSemaphore(value: 0)
        let ended = DispatchSemaphore(value: 0)
        let logger = Logger(label: "ember.local") { _ in SwiftLogNoOpLogHandler() }
        let failure = FailureMessage()
        let connections = ConnectionCounter()
        let task = Task.detached {
            do {
                try await NetworkServer.serveLocalSocket(of: database, directory: directory, logger: logger, connections: connections) {
                    listening.signal()
                }
            } catch let error as NetworkError {
                failure.set(error.message)
                listening.signal()
            } catch {
                failure.set(SocketErrorText.describe(error))
                listening.signal()
            }
            ended.signal()
        }
        let path = LocalSocket.path(forDatabase: directory)
        guard waiting else {
            localSocket = LocalSocketService(task: task, ended: ended, path: path, connections: connections)
            return path
        }
        _ = listening.wait(timeout: .now() + 5)
        if let problem = failure.value {
            note("other terminals cannot connect (the local socket is not served: \(problem))", json: .object([("localSocket", .null)]))
            return nil
        }
        localSocket = LocalSocketService(task: task, ended: ended, path: path, connections: connections)
        return localSocket?.path
    }

    /// A command-line run on a database directory lets other processes in: once it has run
    /// for ``localSocketDelay`` milliseconds (a run that ends sooner pays nothing), it serves the
    /// local socket, and another `ember` on the directory connects through it instead of being
    /// refused. What they ask is answered whenever this run's engine runs (while a command or
    /// a script waits, as every write does).
    public func serveLocalSocketWhenLong() {
        guard ember.administration != nil, case .directory = ember.persistence else { return }
        waitsForLocalClients = true
        localSocketDue = engine.now + Self.localSocketDelay
        engine.schedule(after: Self.localSocketDelay) { [weak self] in
            self?.localSocketDue = nil
            self?.serveLocalSocket(waiting: false)
        }
    }

    /// What a Lua script lets happen while it runs (its count hook calls this about every
    /// 64,000 instructions): a command-line run starts serving the local socket once it is due,
    /// and what other processes ask through it is answered (``Engine/serveSubmissions()``), so
    /// that a second process never waits for a script to end, even one that never waits itself
    /// (issue 38, item 6). The script sees nothing of it: no event of its own clients runs.
    func serveWhileScriptRuns() {
        if let due = localSocketDue, engine.now >= due {
            localSocketDue = nil
            serveLocalSocket(waiting: false)
        }
        engine.serveSubmissions()
    }

    /// How long a command-line run goes before it serves the local socket.
    static let localSocketDelay: Int64 = 100

    /// At the end of a command-line run: lets the processes connected through the local socket
    /// finish (their requests answered meanwhile), for at most ``localClientsWait`` seconds.
    func waitForLocalClients() {
        guard waitsForLocalClients, let service = localSocket else { return }
        let deadline = Date().addingTimeInterval(Self.localClientsWait)
        while service.connections.openCount > 0 && Date() < deadline {
            engine.runDue()
            usleep(5_000)
        }
    }

    /// The longest a command-line run waits at its end for processes connected through it.
    static let localClientsWait: TimeInterval = 10

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
    /// The connections open through it.
    let connections: ConnectionCounter
}

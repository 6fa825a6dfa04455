import EmberCore
import EmberInstance
import EmberNetworkShared
import Foundation
import EmberRules
import EmberStorage
import EmberWire
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `ember serve`: Firebase's network edge over Ember's databases, on Hummingbird 2 and SwiftNIO.
///
/// One HTTP/1.1 server takes the realtime protocol v5 over WebSocket (`/.ws?v=5&ns=NAME`, any
/// path that asks to upgrade), the REST API and event streams (``RESTResponder``). Each
/// namespace is a ``ServedDatabase`` with its own engine thread; the event loops decode and
/// encode, and submit to it. SIGINT and SIGTERM stop it gracefully: no new connections, the
/// open ones closed, every database committed and closed.
public struct NetworkServer: Sendable {
    public let configuration: ServeConfiguration
    private let registry: DatabaseRegistry
    private let logger: Logger

    /// A server for `configuration`; nothing is opened until ``run(onListening:)``.
    /// - Throws: ``NetworkError`` when the rules do not compile.
    public init(configuration: ServeConfiguration, logger: Logger) throws(NetworkError) {
        self.configuration = configuration
        self.logger = logger
        var rules: Ruleset?
        if let source = configuration.rulesSource {
            do {
                rules = try Ruleset(text: source)
            } catch {
                // FILE:line:column, as the shell's --rules and `rules load` say (issue 37).
                let origin = configuration.rulesFile.map { "\($0):" } ?? ""
                throw NetworkError(.badRequest, "the rules do not compile: \(origin)\(error.message)")
            }
        }
        registry = DatabaseRegistry(
            storage: configuration.storage, defaultNamespace: configuration.defaultNamespace, rules: rules,
            maxNamespaces: configuration.limits.maxNamespaces)
    }

    /// Opens the default namespace (so that a database directory that cannot be opened is
    /// reported at once), listens, and serves until SIGINT or SIGTERM. With a database
    /// directory, it also listens on the directory's ``LocalSocket``, where a second `ember`
    /// finds it.
    /// - Parameter onListening: called with the port once the server listens.
    /// - Throws: ``NetworkError`` when the default namespace cannot be opened; the server's
    ///   error when it cannot listen.
    public func run(onListening: @escaping @Sendable (Int) -> Void) async throws {
        Self.raiseFileLimit(logger: logger)
        _ = try registry.database(named: nil, for: .start)
        for name in configuration.namespaces { _ = try registry.database(named: name, for: .start) }
        let connections = ConnectionCounter()
        let sessions = SessionIDs()
        let tcp = Self.application(
            address: .hostname(configuration.host, port: configuration.port),
            publicHost: "\(Self.displayHost(configuration.host)):\(configuration.port)", registry: registry,
            limits: configuration.limits, verifier: configuration.tokenVerifier, admin: configuration.adminCredential,
            policy: configuration.originPolicy, connections: connections, sessions: sessions, tracesMessages: configuration.tracesMessages,
            logger: logger, onListening: { port in onListening(port) })
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: tcp)]
        var socketPath: String?
        if case .directory(let directory, _) = configuration.storage {
            let path = LocalSocket.path(forDatabase: directory)
            socketPath = path
            do throws(NetworkError) {
                try LocalSocket.prepare(path)
                services.append(.init(service: Self.application(
                    address: .unixDomainSocket(path: path), publicHost: "localhost", registry: registry, limits: configuration.limits,
                    verifier: configuration.tokenVerifier,
                    connections: connections, sessions: sessions, tracesMessages: configuration.tracesMessages, logger: logger,
                    onListening: { _ in LocalSocket.restrict(path) })))
            } catch {
                logger.warning("\(error.message)")
            }
        }
        // Stopped in reverse order: the watcher first (it ends the open WebSockets and streams),
        // then the HTTP servers (which wait for their connections to end).
        services.append(.init(service: ShutdownWatcher(connections: connections)))
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        // The socket goes before the directory's lock: the next holder binds its own.
        do {
            try await group.run()
        } catch {
            if let socketPath { unlink(socketPath) }
            closeDatabases()
            throw error
        }
        if let socketPath { unlink(socketPath) }
        closeDatabases()
    }

    /// Serves `database` (which its owner runs: a shell session's) over HTTP on 127.0.0.1 and a
    /// free port, for the data viewer (`view`) and the REST API, until the task is cancelled.
    /// Only this machine's pages and hosts may use it (``OriginPolicy``).
    /// - Throws: the server's error when it cannot listen.
    public static func serveViewer(
        of database: ServedDatabase, logger: Logger, connections: ConnectionCounter = ConnectionCounter(),
        onListening: @escaping @Sendable (Int) -> Void
    ) async throws {
        let registry = DatabaseRegistry(only: database)
        let app = application(
            address: .hostname("127.0.0.1", port: 0), publicHost: "127.0.0.1", registry: registry, limits: NetworkLimits(),
            policy: OriginPolicy(listeningOn: "127.0.0.1"), connections: connections, sessions: SessionIDs(), logger: logger,
            onListening: onListening)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: app), .init(service: ShutdownWatcher(connections: connections))],
                gracefulShutdownSignals: [], cancellationSignals: [], logger: logger))
        try await withTaskCancellationHandler {
            try await group.run()
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// Serves `database` (which its owner runs and closes: an interactive shell's) on the
    /// local socket of its database directory, until the task is cancelled; then the open
    /// connections end.
    /// - Throws: ``NetworkError`` when the socket cannot be prepared; the server's error when it
    ///   cannot listen.
    public static func serveLocalSocket(
        of database: ServedDatabase, directory: String, logger: Logger, connections: ConnectionCounter = ConnectionCounter(),
        onListening: @escaping @Sendable () -> Void = {}
    ) async throws {
        let path = LocalSocket.path(forDatabase: directory)
        try LocalSocket.prepare(path)
        let registry = DatabaseRegistry(only: database)
        let app = application(
            address: .unixDomainSocket(path: path), publicHost: "localhost", registry: registry, limits: NetworkLimits(),
            connections: connections, sessions: SessionIDs(), logger: logger,
            onListening: { _ in
                LocalSocket.restrict(path)
                onListening()
            })
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: app), .init(service: ShutdownWatcher(connections: connections))],
                gracefulShutdownSignals: [], cancellationSignals: [], logger: logger))
        defer {
            unlink(path)
            try? database.close()
        }
        try await withTaskCancellationHandler {
            try await group.run()
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    /// The HTTP server of one address: the realtime protocol over WebSocket, REST, event
    /// streams. `admin` is the administrator's credential there (a local socket's is `owner`:
    /// only the directory's user can open it). `policy` says which hosts and web pages may use
    /// it (none for a local socket, which no browser reaches).
    private static func application(
        address: BindAddress, publicHost: String, registry: DatabaseRegistry, limits: NetworkLimits, verifier: TokenVerifier? = nil,
        admin: AdminCredential = .owner, policy: OriginPolicy? = nil, connections: ConnectionCounter,
        sessions: SessionIDs, tracesMessages: Bool = false, logger: Logger, onListening: @escaping @Sendable (Int) -> Void
    ) -> some Service {
        let responder = RESTResponder(
            registry: registry, limits: limits, verifier: verifier, admin: admin, policy: policy, logger: logger, connections: connections)
        // Every connection's pipeline begins with a ConnectionGate (counted, the head's deadline
        // and size, malformed HTTP answered and closed).
        let server = HTTPServerBuilder { respond in
            GuardedHTTPChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: respond,
                    configuration: .init(
                        http1: .init(idleTimeout: .seconds(Int64(limits.idleTimeout))),
                        ws: .init(maxFrameSize: limits.maxMessageSize, autoPing: .disabled)),
                    shouldUpgrade: shouldUpgrade),
                connections: connections, limits: limits)
        }
        @Sendable func shouldUpgrade(head: HTTPRequest, channel: any Channel, logger _: Logger) throws
            -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
        {
                if let policy {
                    let origin = head.headerFields[.origin]
                    guard policy.allows(host: head.authority), policy.allows(origin: origin) else {
                        // hummingbird-websocket answers 400 and closes.
                        logger.warning("refused a WebSocket from Host \(head.authority ?? "-"), Origin \(origin ?? "-"): not this server's host or an allowed origin (--allow-origin)")
                        return .dontUpgrade
                    }
                }
                let target = head.path ?? "/"
                let query = QueryString(target: target)
                let database: ServedDatabase
                do throws(NetworkError) {
                    database = try registry.database(named: query["ns"], for: .connection)
                } catch {
                    logger.warning("refused a WebSocket: \(error.message)")
                    return .dontUpgrade
                }
                let frames = OutboundFrames(channel: channel, outbox: database.outbox, limit: limits.maxUnsentBytes)
                guard let number = connections.open(close: { frames.finish() }) else {
                    logger.warning("refused a WebSocket: the server is stopping")
                    return .dontUpgrade
                }
                // On a namespace that does not exist yet, the connection closes when it is
                // created: the SDK connects again, to the namespace.
                let waiter = registry.endOnCreation(of: query["ns"], for: database) { frames.finish() }
                // Registered until the channel closes (the one place that forgets them), whether
                // or not the upgrade completes.
                channel.closeFuture.whenComplete { _ in
                    connections.close(number)
                    registry.forget(waiter)
                }
                // The connection reads frames from now on, not HTTP parts.
                if let boundaries = try? channel.pipeline.syncOperations.context(name: RequestBoundaries.name) {
                    channel.pipeline.syncOperations.removeHandler(context: boundaries, promise: nil)
                }
                // A connection to a namespace that does not exist: the administrator's gauth
                // creates it (and the client connects again).
                let createNamespace = registry.creator(of: query["ns"], for: database)
                let host = head.authority ?? publicHost
                let session = sessions.next()
                return .upgrade([:]) { inbound, outbound, _ in
                    logger.info("connection \(session) opened (ns=\(database.namespace))")
                    try await RealtimeSocket.serve(
                        inbound: inbound, outbound: outbound, channel: channel, frames: frames, database: database, host: host, session: session,
                        limits: limits, verifier: verifier, admin: admin, createNamespace: createNamespace,
                        tracing: tracesMessages, logger: logger)
                    logger.info("connection \(session) closed")
                }
        }
        return Application(
            responder: responder,
            server: server,
            configuration: .init(address: address, serverName: "ember"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
    }

    private func closeDatabases() {
        for (name, error) in registry.closeAll() {
            logger.error("namespace \(name) did not close cleanly: \(error.message)")
        }
    }

    /// `host` as it goes in a URL (IPv6 in brackets).
    public static func displayHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

import ServiceLifecycle

/// A service beside the HTTP server that, when a graceful stop begins (SIGINT, SIGTERM), ends
/// the open WebSockets and event streams, so that the server's own stop does not wait for
/// clients that would stay connected for ever.
struct ShutdownWatcher: Service {
    let connections: ConnectionCounter

    func run() async throws {
        try? await gracefulShutdown()
        connections.closeAll()
    }
}

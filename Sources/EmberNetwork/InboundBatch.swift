import NIOCore

/// The messages one event loop read for one database during one turn of its loop, handed to
/// the database's engine together: what the loop read from all its sockets in one wake-up runs
/// in one engine turn and one tick, so each connection's answers go out in one write (a
/// listener fed by ten writers gets their ten updates in one `writev`, not ten).
///
/// The first message of a turn goes to the engine at once (a lone message, the common case when
/// the server is not busy, waits for nothing); the ones read after it in the same turn are
/// handed over together at the end of the turn (after the loop has read every socket that was
/// ready). Order is kept: the first goes before them. Confined to its event loop.
final class InboundBatch: @unchecked Sendable {
    private let loop: any EventLoop
    /// Unretained: the database holds its batches, and outlives them.
    private unowned let database: ServedDatabase
    private var pending: [@Sendable () -> Void] = []
    /// Whether the end of this turn of the loop is scheduled (a message ran or waits this turn).
    private var turnOpen = false

    init(loop: any EventLoop, database: ServedDatabase) {
        self.loop = loop
        self.database = database
    }

    /// Hands `work` (a decoded message for its connection) to the engine: the first of a turn of
    /// the loop at once (a lone message waits for nothing), the others at the end of the turn,
    /// together. On the loop.
    func add(_ work: @escaping @Sendable () -> Void) {
        if turnOpen {
            pending.append(work)
            return
        }
        turnOpen = true
        loop.execute { [self] in
            turnOpen = false
            guard !pending.isEmpty else { return }
            let works = pending
            pending = []
            database.submit { _ in
                for work in works { work() }
            }
        }
        database.submit { _ in work() }
    }
}

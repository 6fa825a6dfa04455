import Synchronization

/// The open connections: how many (every HTTP connection, from its first moment, whatever it
/// becomes) against ``NetworkLimits/maxConnections``, and how to end the long-lived ones
/// (WebSockets and event streams), so that a graceful stop does not wait for clients that
/// never leave.
public final class ConnectionCounter: Sendable {
    private struct State {
        var open = 0
        var next = 0
        var closers: [Int: @Sendable () -> Void] = [:]
        var stopping = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Counts one more connection, unless `limit` are open or the server is stopping.
    /// - Returns: whether it may stay; each one admitted is given back by ``leave()``.
    func admit(limit: Int) -> Bool {
        state.withLock { state in
            guard !state.stopping, state.open < limit else { return false }
            state.open += 1
            return true
        }
    }

    /// Counts a connection admitted by ``admit(limit:)`` as closed.
    func leave() {
        state.withLock { $0.open -= 1 }
    }

    /// How many connections are open.
    public var openCount: Int { state.withLock { $0.open } }

    /// Registers a long-lived connection (already admitted), unless the server is stopping.
    /// - Parameter close: ends the connection (called at most once, by ``closeAll()``).
    /// - Returns: its number, for ``close(_:)``; `nil` when the server is stopping.
    func open(close: @escaping @Sendable () -> Void) -> Int? {
        state.withLock { state in
            guard !state.stopping else { return nil }
            state.next += 1
            state.closers[state.next] = close
            return state.next
        }
    }

    /// Forgets the long-lived connection `id`.
    func close(_ id: Int) {
        _ = state.withLock { $0.closers.removeValue(forKey: id) }
    }

    /// Ends every long-lived connection and refuses new ones: the server is stopping.
    func closeAll() {
        let closers = state.withLock { state in
            state.stopping = true
            return Array(state.closers.values)
        }
        for close in closers { close() }
    }
}

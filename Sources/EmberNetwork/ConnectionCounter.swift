import Synchronization

/// The open long-lived connections (WebSockets and event streams): how many, against the limit,
/// and how to end each, so that a graceful stop does not wait for clients that never leave.
final class ConnectionCounter: Sendable {
    private struct State {
        var next = 0
        var closers: [Int: @Sendable () -> Void] = [:]
        var stopping = false
    }

    private let state = Mutex(State())

    /// Counts one more connection, unless `limit` are open or the server is stopping.
    /// - Parameter close: ends the connection (called at most once, by ``closeAll()``).
    /// - Returns: the connection's number, for ``close(_:)``; `nil` when refused.
    func open(limit: Int, close: @escaping @Sendable () -> Void) -> Int? {
        state.withLock { state in
            guard !state.stopping, state.closers.count < limit else { return nil }
            state.next += 1
            state.closers[state.next] = close
            return state.next
        }
    }

    /// Counts the connection `id` as closed.
    func close(_ id: Int) {
        _ = state.withLock { $0.closers.removeValue(forKey: id) }
    }

    /// Ends every open connection and refuses new ones: the server is stopping.
    func closeAll() {
        let closers = state.withLock { state in
            state.stopping = true
            return Array(state.closers.values)
        }
        for close in closers { close() }
    }
}

/// A client's connection as a state machine: inputs in, actions out, no side effects.
///
/// The repo feeds it what happens (the user goes offline or online, the handshake arrives, the
/// transport closes, a reconnection timer fires) and performs the actions it returns. Timers are
/// numbered, so a timer from before a `goOffline` cannot reconnect a client that went offline.
struct ConnectionStateMachine: Sendable, Hashable {
    /// What happened.
    enum Input: Sendable, Hashable {
        /// `goOnline`, or the client starting online.
        case goOnline
        /// `goOffline`.
        case goOffline
        /// The server's handshake arrived on the open transport.
        case handshake
        /// The transport closed. `jitter` in [0, 1) spreads out reconnection attempts.
        case transportClosed(jitter: Double)
        /// The reconnection timer numbered `generation` fired.
        case reconnectTimerFired(generation: Int)
    }

    /// What the repo must do, in order.
    enum Action: Sendable, Hashable {
        /// Open a new transport to the server.
        case openTransport
        /// Close the current transport.
        case closeTransport
        /// The connection is up: restore listens, send queued work.
        case connectionEstablished
        /// The connection that was up is gone.
        case connectionLost
        /// Schedule `reconnectTimerFired(generation:)` after `delay` milliseconds.
        case scheduleReconnect(delay: Int64, generation: Int)
    }

    private(set) var state: ConnectionState
    let policy: ReconnectPolicy
    /// The delay before the next reconnection attempt, before jitter.
    private(set) var delay: Int64
    private var generation = 0

    /// A machine in `offline` (nothing opened yet); send `goOnline` to start.
    init(policy: ReconnectPolicy) {
        self.policy = policy
        state = .offline
        delay = policy.initialDelay
    }

    /// Takes one input.
    /// - Complexity: O(1).
    mutating func handle(_ input: Input) -> [Action] {
        switch (state, input) {
        case (.offline, .goOnline):
            state = .connecting
            delay = policy.initialDelay
            return [.openTransport]
        case (.connecting, .goOffline):
            state = .offline
            return [.closeTransport]
        case (.connected, .goOffline):
            state = .offline
            return [.closeTransport, .connectionLost]
        case (.disconnected, .goOffline):
            state = .offline
            generation += 1
            return []
        case (.connecting, .handshake):
            state = .connected
            delay = policy.initialDelay
            return [.connectionEstablished]
        case (.connecting, .transportClosed(let jitter)):
            state = .disconnected
            return [scheduleReconnect(jitter: jitter)]
        case (.connected, .transportClosed(let jitter)):
            state = .disconnected
            return [.connectionLost, scheduleReconnect(jitter: jitter)]
        case (.disconnected, .reconnectTimerFired(let fired)) where fired == generation:
            state = .connecting
            return [.openTransport]
        default:
            // Going online while online, a late timer, a handshake without a transport: nothing.
            return []
        }
    }

    private mutating func scheduleReconnect(jitter: Double) -> Action {
        generation += 1
        // Wait between half the delay and the whole of it, then grow the delay.
        let wait = Int64((Double(delay) * (0.5 + 0.5 * min(max(jitter, 0), 1))).rounded())
        delay = policy.growing(delay)
        return .scheduleReconnect(delay: wait, generation: generation)
    }
}

import EmberEngine
import EmberServer

/// Revokes the sign-ins of a served database's connections when their tokens expire, not only
/// at their next request: a listener, or an event stream opened with `auth=`, that sends nothing
/// kept receiving past its token's expiry. At the end of each tick it looks at the server's
/// ``Server/nextTokenExpiry`` and, when that is earlier than the timer it has, schedules one on
/// the engine that calls ``Server/revokeExpiredTokens()``. Lives on the engine's thread.
final class TokenExpiryWatch: TickParticipant {
    private let server: Server
    private let engine: Engine
    /// The server time the timer scheduled is for, if one is.
    private var scheduled: Int64?

    init(server: Server, engine: Engine) {
        self.server = server
        self.engine = engine
    }

    var hasTickWork: Bool {
        guard let next = server.nextTokenExpiry else { return false }
        return scheduled.map { next < $0 } ?? true
    }

    func endTick() {
        guard let next = server.nextTokenExpiry, scheduled.map({ next < $0 }) ?? true else { return }
        scheduled = next
        // The server's time is its clock plus its skew; the engine's timers run on the clock.
        let skew = server.serverTime - engine.now
        engine.schedule(at: next - skew) { [weak self] in
            guard let self else { return }
            if self.scheduled == next { self.scheduled = nil }
            self.server.revokeExpiredTokens()
        }
    }
}

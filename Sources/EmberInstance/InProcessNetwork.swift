import EmberCore
import EmberEngine
import EmberWire

/// Joins clients to the server inside one process the way a network would: every message is
/// queued on the ``Engine`` and arrives later, in order, when the engine runs.
///
/// Nothing is a direct call from client to server. Messages and timers (reconnection back-off,
/// disconnect timeouts) share the engine's one time-ordered queue, so one queue decides
/// everything that happens next. Time comes from the engine's clock, so with a manual clock a
/// test decides exactly when latency and timeouts elapse. Confined to the engine's thread.
public final class InProcessNetwork {
    /// The engine whose queue carries the messages.
    public let engine: Engine

    /// A network on `engine`.
    public init(engine: Engine) {
        self.engine = engine
    }

    /// A network on an engine of its own, on `clock` (virtual time on a ``ManualClock``).
    public convenience init(clock: any DatabaseClock) {
        self.init(engine: Engine(clock: clock))
    }

    /// The network's time, in milliseconds.
    public var now: Int64 { engine.now }

    /// Opens a connection.
    /// - Parameters:
    ///   - latency: how long each message takes, in milliseconds.
    ///   - silentDropTimeout: how long the server takes to notice a silent drop, in milliseconds.
    public func connect(latency: Int64 = 0, silentDropTimeout: Int64 = 60_000) -> InProcessLink {
        InProcessLink(network: self, latency: latency, silentDropTimeout: silentDropTimeout)
    }

    /// How many messages (and connections' ends) are travelling.
    public var messagesInFlight: Int { engine.messagesInFlight }

    /// Schedules a timer on the engine: `action` runs at `time`.
    public func schedule(at time: Int64, _ action: @escaping () -> Void) {
        engine.schedule(at: time, .timer, action)
    }

    /// Schedules the arrival of a message (or of the end of a connection) at `time`.
    func scheduleMessage(at time: Int64, _ action: @escaping () -> Void) {
        engine.schedule(at: time, .message, action)
    }
}

import EmberCore
import EmberWire

/// What a client needs from the engine that runs it: time, randomness, timers, a way to reach
/// the server, and a way to wait.
///
/// The embedded instance (`Ember`) provides it; everything a client does happens on the engine,
/// one thing at a time, so a client never calls the server directly and never sleeps itself.
public protocol ClientEnvironment: AnyObject {
    /// The local clock, in milliseconds since 1970.
    var clock: any DatabaseClock { get }

    /// A random 64-bit number (push ids, reconnection jitter).
    func randomNumber() -> UInt64

    /// Opens a new connection to the server. Its events arrive on the engine.
    func connect() -> ClientTransport

    /// Runs `action` on the engine `milliseconds` from now.
    func schedule(after milliseconds: Int64, _ action: @escaping () -> Void)

    /// Posts `callback` (listener events, completions) to run on the engine once the current
    /// operation is over: never inside an operation, never inside another callback.
    func post(_ callback: @escaping () -> Void)

    /// Runs the posted callbacks now if the caller is outside the engine's own work (a public
    /// operation returning to its caller's code); inside an operation or a callback, nothing.
    func deliverPosted()

    /// Runs the engine (delivering messages, firing timers, raising events) until `condition`
    /// holds.
    /// - Throws: ``DatabaseError`` when the condition can never hold (nothing is left to
    ///   happen), or when the wait is cancelled.
    func run(until condition: () -> Bool) throws(DatabaseError)

    /// Runs the engine until `condition` holds, suspending rather than blocking when there is
    /// nothing to do yet.
    nonisolated(nonsending) func run(until condition: () -> Bool) async throws(DatabaseError)
}

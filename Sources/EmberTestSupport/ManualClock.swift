import EmberCore
import Synchronization

/// A clock that only moves when told to: for tests that need exact timestamps.
public final class ManualClock: DatabaseClock {
    private let time: Mutex<Int64>

    public init(_ start: Int64 = 1_700_000_000_000) {
        time = Mutex(start)
    }

    public func now() -> Int64 { time.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative amount).
    public func advance(by milliseconds: Int64) {
        time.withLock { $0 += milliseconds }
    }

    /// Sets the clock.
    public func set(_ milliseconds: Int64) {
        time.withLock { $0 = milliseconds }
    }
}

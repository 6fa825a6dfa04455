import Synchronization

/// A clock that only moves when told to: virtual time.
///
/// Tests use it for exact timestamps; an embedded instance on a manual clock runs in virtual
/// time, jumping the clock to the next timer or message instead of sleeping (a 60-second
/// disconnect timeout takes no real time).
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

    /// Moves the clock forward to `milliseconds`; never back.
    public func advance(to milliseconds: Int64) {
        time.withLock { $0 = max($0, milliseconds) }
    }
}

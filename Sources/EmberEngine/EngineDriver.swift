import EmberCore

/// How time passes for an engine.
public enum EngineDriver: Sendable {
    /// Virtual time on a manual clock: when nothing is due the engine moves the clock to the
    /// next message or timer instead of sleeping, so a 60-second timeout costs no real time and
    /// the same inputs give the same run (tests).
    case virtualTime(ManualClock)
    /// Real time: when nothing is due the engine sleeps until the next message or timer, or
    /// until another thread submits work or interrupts.
    case realTime(any DatabaseClock)

    /// The driver for `clock`: virtual time on a ``ManualClock``, real time otherwise.
    public static func `for`(_ clock: any DatabaseClock) -> EngineDriver {
        if let manual = clock as? ManualClock { return .virtualTime(manual) }
        return .realTime(clock)
    }

    /// The clock.
    public var clock: any DatabaseClock {
        switch self {
        case .virtualTime(let clock): clock
        case .realTime(let clock): clock
        }
    }
}

/// How a wait on the engine ended (``Engine/wait(until:deadline:)``).
public enum WaitOutcome: Sendable, Hashable {
    /// What was waited for holds (and the tick has ended: what it changed is committed).
    case satisfied
    /// An interrupt (Ctrl-C, ``Engine/interrupt()``) stopped the wait; it is consumed.
    case interrupted
    /// The deadline came first.
    case timedOut
    /// Nothing left to happen can make it hold (nothing is scheduled and nothing outside the
    /// engine can submit work): e.g. waiting for an answer while offline.
    case wouldWaitForever
    /// The wait was asked for inside the engine's own work (a message, a timer, a listener or
    /// completion callback), which must schedule rather than wait.
    case reentrant
}

import EmberCore

extension WaitOutcome {
    /// The error an API that waits reports for this outcome, or `nil` when it is satisfied.
    ///
    /// `.timedOut` is `nil` too: a wait with a deadline returns when the deadline passes, and
    /// the caller decides what that means.
    public var error: DatabaseError? {
        switch self {
        case .satisfied, .timedOut: nil
        case .interrupted: .other(code: ErrorCode.interrupted, message: "the wait was interrupted")
        case .wouldWaitForever:
            .other(
                code: ErrorCode.wouldWaitForever,
                message: "nothing left to happen can finish this wait (is the client offline?)")
        case .reentrant:
            .other(
                code: ErrorCode.reentrantWait,
                message: "cannot wait for the database inside a listener or completion callback")
        }
    }

    /// Throws ``error`` when there is one.
    public func check() throws(DatabaseError) {
        if let error { throw error }
    }
}

import EmberCore

/// What a transaction's update function decides for the value it was given.
public enum TransactionUpdate: Sendable {
    /// Write this value (`Node.empty` deletes).
    case commit(Node)
    /// Leave the data as it is; the transaction completes uncommitted.
    case abort
}

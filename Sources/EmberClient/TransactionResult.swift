/// How a transaction ended, when it did not fail.
public struct TransactionResult {
    /// Whether the value was written (`false`: the update function aborted).
    public var committed: Bool
    /// The data at the location when the transaction completed.
    public var snapshot: DataSnapshot
    /// How many times the update function ran (1 when nothing else wrote in between).
    public var attempts: Int
}

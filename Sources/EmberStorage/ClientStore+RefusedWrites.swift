extension ClientStore {
    /// Runs `body` while the store refuses every write, as a disk that refuses them would: a
    /// commit made in it, here or on the store's queue, fails and rolls back, and its changes
    /// wait to be committed again.
    ///
    /// Fault injection, for tests and harnesses, as ``ServerStore/refusingWrites(_:)``.
    /// - Throws: what `body` throws, or SQLite's error when the setting cannot be changed.
    public func refusingWrites<T>(_ body: () throws -> T) throws -> T {
        try queue.refusingWrites(body)
    }
}

extension ServerStore {
    /// Runs `body` while the store refuses every write, as a disk that refuses them would: a
    /// commit made in it fails (SQLite's `PRAGMA query_only` on the store's connection) and
    /// rolls back, and what it held stays to be committed again.
    ///
    /// Fault injection, for tests and harnesses: the store's file is opened in exclusive locking
    /// mode (`StoreLocation.openDurable`), so no other connection can hold a lock to make its
    /// commits fail.
    /// - Throws: what `body` throws, or SQLite's error when the setting cannot be changed.
    public func refusingWrites<T>(_ body: () throws -> T) throws -> T {
        try queue.refusingWrites(body)
    }
}

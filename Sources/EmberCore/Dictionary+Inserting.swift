extension Dictionary {
    /// The value at `key`, after storing `make()` there when there was none: the step down a
    /// trie whose entries are made as a path first reaches them.
    /// - Complexity: O(1) on average: one lookup, and one insertion when absent.
    @inlinable
    public mutating func value(forKey key: Key, inserting make: () -> Value) -> Value {
        if let value = self[key] { return value }
        let value = make()
        self[key] = value
        return value
    }
}

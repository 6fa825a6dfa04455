extension Path {
    /// The path's hash in a `Set` or `Dictionary` whose table has this `seed`: each key's
    /// SipHash-1-3 under this process's random key (``ChildKey/sipHash(seed:)``), fed as one word
    /// each, then the count, into a SipHash-1-3 keyed with the table's seed. Equal paths have
    /// equal keys, so equal hashes; a path that only differs by where its keys split (`a/bc`,
    /// `ab/c`) gives other words.
    /// - Complexity: O(d·k) for d keys of length k.
    public func _rawHashValue(seed: Int) -> Int {
        let key = SipHash.processKey
        var state = SipHash.State(k0: key.0 ^ UInt64(truncatingIfNeeded: seed), k1: key.1)
        for child in keys { state.compress(child.sipHash(seed: 0)) }
        state.compress(UInt64(truncatingIfNeeded: keys.count) << 56)
        return Int(truncatingIfNeeded: state.finalize())
    }
}

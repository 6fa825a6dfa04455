extension ConnectionID {
    /// The number's hash in a `Set` or `Dictionary` whose table has this `seed`: the
    /// SplitMix64 finaliser of the number and the seed, a dozen instructions where `Hasher`
    /// takes about two hundred (the server looks a connection up twice a message, callgrind).
    /// A keyed hash is not needed: the server numbers its connections itself, so no client can
    /// choose numbers that collide.
    /// - Complexity: O(1).
    public func _rawHashValue(seed: Int) -> Int {
        var mixed = UInt64(bitPattern: Int64(rawValue)) &+ UInt64(bitPattern: Int64(seed)) &* 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 31))
    }
}

/// SipHash (Aumasson and Bernstein, 2012) of a short byte string in one call: the function
/// Swift's `Hasher` computes (SipHash-1-3), without its streaming buffer.
///
/// Why it is here rather than `Hasher`: a `Dictionary` keyed by ``ChildKey`` (the regions the
/// server holds, a tick's changed paths, the rules' levels) hashed each key through `Hasher`'s
/// seeding, buffering and finalising: 5–8% of a durable write's time (`perf`); in one call, a
/// durable write's `Hasher` calls (6,200 instructions) became 4,100 (callgrind). ``ChildKey``
/// keeps the same function and the same secrecy: its key is drawn from `Hasher`'s own
/// per-process random seed (``processKey``), so keys a client chooses cannot be crafted to
/// collide, and `SWIFT_DETERMINISTIC_HASHING` makes it repeatable as it makes `Hasher`.
enum SipHash {
    /// This process's 128-bit key, derived from `Hasher`'s random per-process seed.
    static let processKey: (UInt64, UInt64) = {
        var first = Hasher()
        first.combine(0x656D_6265_725F_6B30 as UInt64)
        var second = Hasher()
        second.combine(0x656D_6265_725F_6B31 as UInt64)
        return (UInt64(truncatingIfNeeded: first.finalize()), UInt64(truncatingIfNeeded: second.finalize()))
    }()

    /// SipHash-1-3 of `bytes` under the key `(k0, k1)`, as `Hasher` computes it.
    /// - Complexity: O(n) for n bytes.
    static func hash(_ bytes: UnsafeRawBufferPointer, k0: UInt64, k1: UInt64) -> UInt64 {
        var state = State(k0: k0, k1: k1)
        state.absorb(bytes) { state, word in state.compress(word) }
        return state.finalize()
    }

    /// SipHash-c-d of `bytes`: `c` rounds per 8-byte word, `d` to finish (the reference vectors
    /// are SipHash-2-4's).
    /// - Complexity: O(n) for n bytes.
    static func hash(
        _ bytes: UnsafeRawBufferPointer, k0: UInt64, k1: UInt64, compressionRounds c: Int, finalizationRounds d: Int
    ) -> UInt64 {
        var state = State(k0: k0, k1: k1)
        state.absorb(bytes) { state, word in
            state.v3 ^= word
            for _ in 0..<c { state.round() }
            state.v0 ^= word
        }
        state.v2 ^= 0xFF
        for _ in 0..<d { state.round() }
        return state.v0 ^ state.v1 ^ state.v2 ^ state.v3
    }

    /// SipHash-1-3 of the eight bytes of `word` (little-endian) under the key `(k0, k1)`.
    /// - Complexity: O(1).
    static func hash(word: UInt64, k0: UInt64, k1: UInt64) -> UInt64 {
        var state = State(k0: k0, k1: k1)
        state.compress(word)
        state.compress(8 << 56)
        return state.finalize()
    }

    /// The four words of SipHash's state.
    struct State {
        var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64

        init(k0: UInt64, k1: UInt64) {
            v0 = k0 ^ 0x736F_6D65_7073_6575
            v1 = k1 ^ 0x646F_7261_6E64_6F6D
            v2 = k0 ^ 0x6C79_6765_6E65_7261
            v3 = k1 ^ 0x7465_6462_7974_6573
        }

        /// Feeds `bytes` to `compress` as SipHash's words: each whole eight bytes, then the
        /// rest with the length's low byte on top.
        mutating func absorb(_ bytes: UnsafeRawBufferPointer, _ compress: (inout State, UInt64) -> Void) {
            let count = bytes.count
            var offset = 0
            while offset + 8 <= count {
                compress(&self, UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
            var last = UInt64(truncatingIfNeeded: count) << 56
            var shift: UInt64 = 0
            while offset < count {
                last |= UInt64(bytes[offset]) << shift
                shift += 8
                offset += 1
            }
            compress(&self, last)
        }

        /// One word, one round (SipHash-1-3).
        @inline(__always)
        mutating func compress(_ word: UInt64) {
            v3 ^= word
            round()
            v0 ^= word
        }

        /// The three finishing rounds (SipHash-1-3) and the hash.
        @inline(__always)
        mutating func finalize() -> UInt64 {
            v2 ^= 0xFF
            round()
            round()
            round()
            return v0 ^ v1 ^ v2 ^ v3
        }

        @inline(__always)
        mutating func round() {
            v0 &+= v1
            v1 = v1.rotatedLeft(13) ^ v0
            v0 = v0.rotatedLeft(32)
            v2 &+= v3
            v3 = v3.rotatedLeft(16) ^ v2
            v0 &+= v3
            v3 = v3.rotatedLeft(21) ^ v0
            v2 &+= v1
            v1 = v1.rotatedLeft(17) ^ v2
            v2 = v2.rotatedLeft(32)
        }
    }
}

extension UInt64 {
    /// The bits rotated left by `count` (0 < count < 64).
    @inline(__always)
    func rotatedLeft(_ count: UInt64) -> UInt64 { (self &<< count) | (self &>> (64 &- count)) }
}

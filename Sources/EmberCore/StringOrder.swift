/// Byte-exact string comparisons in the order the Firebase SDKs use.
///
/// Swift's `String` comparison follows Unicode canonical equivalence, which would make `"é"` and
/// `"e\u{301}"` the same key. Firebase compares strings by UTF-16 code units (JavaScript and Java
/// strings), and treats differently encoded strings as different keys. These helpers compare the
/// UTF-8 bytes, which gives code-point order, then correct the one place where code-point order
/// and UTF-16 order differ: characters U+E000…U+FFFF sort after supplementary characters
/// (U+10000 and above) in UTF-16, because surrogates (0xD800…0xDFFF) come before 0xE000.
public enum StringOrder {
    /// Three-way comparison of two strings in UTF-16 code-unit order.
    /// - Complexity: O(min(a, b)) bytes.
    @inlinable
    public static func compareUTF16(_ a: String, _ b: String) -> Int {
        if let order = compareSmallASCII(a, b) { return order }
        // Native strings are contiguous UTF-8; bridged ones (not on Linux) take the slow path.
        if let order = a.utf8.withContiguousStorageIfAvailable({ aBytes in
            b.utf8.withContiguousStorageIfAvailable { bBytes in compareUTF16(aBytes, bBytes) }
        }), let order {
            return order
        }
        let aBytes = Array(a.utf8), bBytes = Array(b.utf8)
        return aBytes.withUnsafeBufferPointer { x in bBytes.withUnsafeBufferPointer { y in compareUTF16(x, y) } }
    }

    /// Three-way comparison of two small ASCII strings (at most 15 bytes, held in the string
    /// itself), or `nil` for any other pair.
    ///
    /// Keys are compared on every search of every tree: through `withContiguousStorageIfAvailable`
    /// a comparison of two short keys cost about 135 instructions, a tenth of a write with a
    /// listener of 1,000 children (callgrind); read as two words, about 15. This reads the
    /// standard library's representation of a small string on 64-bit little-endian platforms:
    /// its UTF-8 bytes from the lowest byte of the first word on, zero-padded, the count in the
    /// low nibble of the second word's top byte and, in its top nibble, `0xE` (immortal, small,
    /// ASCII) when every byte is ASCII. `StringOrderTests` checks that layout, and any other
    /// string (large, non-ASCII, another platform) takes the byte-wise comparison. For ASCII,
    /// byte order is UTF-16 order.
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    static func compareSmallASCII(_ a: String, _ b: String) -> Int? {
        #if _pointerBitWidth(_64) && _endian(little)
        let (a0, a1) = unsafeBitCast(a, to: (UInt64, UInt64).self)
        let (b0, b1) = unsafeBitCast(b, to: (UInt64, UInt64).self)
        guard a1 &>> 60 == 0xE, b1 &>> 60 == 0xE else { return nil }
        // Bytes 0...7, then 8...14 (the top byte masked off), each read most significant first.
        if a0 != b0 { return a0.byteSwapped < b0.byteSwapped ? -1 : 1 }
        let bytes: UInt64 = 0x00FF_FFFF_FFFF_FFFF
        let (x, y) = (a1 & bytes, b1 & bytes)
        if x != y { return x.byteSwapped < y.byteSwapped ? -1 : 1 }
        // The same bytes up to the padding: the shorter first.
        let (aCount, bCount) = ((a1 &>> 56) & 0xF, (b1 &>> 56) & 0xF)
        return aCount == bCount ? 0 : (aCount < bCount ? -1 : 1)
        #else
        return nil
        #endif
    }

    /// Whether two small strings (ASCII or not) have the same bytes, or `nil` when either is
    /// not small (see ``compareSmallASCII(_:_:)`` for the representation read).
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    static func smallBytesEqual(_ a: String, _ b: String) -> Bool? {
        #if _pointerBitWidth(_64) && _endian(little)
        let (a0, a1) = unsafeBitCast(a, to: (UInt64, UInt64).self)
        let (b0, b1) = unsafeBitCast(b, to: (UInt64, UInt64).self)
        // 0xE: small ASCII; 0xA: small, not all ASCII. Two of one kind are equal exactly when
        // their words are; two of different kinds go the long way.
        let kind = a1 &>> 60
        guard kind == b1 &>> 60, kind == 0xE || kind == 0xA else { return nil }
        return a0 == b0 && a1 == b1
        #else
        return nil
        #endif
    }

    /// Three-way comparison of two UTF-8 byte sequences in UTF-16 code-unit order.
    /// - Complexity: O(min(a, b)).
    @inlinable
    public static func compareUTF16(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let count = min(a.count, b.count)
        var index = 0
        while index < count {
            let x = a[index], y = b[index]
            if x != y {
                // Both are lead bytes of multi-byte characters at the same position: 0xEE/0xEF
                // start U+E000…U+FFFF, which sort after 0xF0…0xF4 (supplementary) in UTF-16.
                if x >= 0xEE && y >= 0xEE {
                    return utf16Rank(x) < utf16Rank(y) ? -1 : 1
                }
                return x < y ? -1 : 1
            }
            index += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    @inlinable
    static func utf16Rank(_ leadByte: UInt8) -> UInt16 {
        leadByte == 0xEE || leadByte == 0xEF ? UInt16(leadByte) + 0x10 : UInt16(leadByte)
    }

    /// Whether two strings have the same UTF-8 bytes (no Unicode normalisation).
    /// - Complexity: O(n).
    @inlinable
    public static func bytesEqual(_ a: String, _ b: String) -> Bool {
        if let equal = smallBytesEqual(a, b) { return equal }
        // Lengths first (O(1) for native strings), then the bytes in place: iterating the UTF-8
        // views index by index costs several times more.
        guard a.utf8.count == b.utf8.count else { return false }
        let equal = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                for index in 0..<left.count where left[index] != right[index] { return false }
                return true
            }
        }
        if let equal = equal ?? nil { return equal }
        return a.utf8.elementsEqual(b.utf8)
    }
}

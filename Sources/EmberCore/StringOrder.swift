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
        // Native strings are contiguous UTF-8; bridged ones (not on Linux) take the slow path.
        if let order = a.utf8.withContiguousStorageIfAvailable({ aBytes in
            b.utf8.withContiguousStorageIfAvailable { bBytes in compareUTF16(aBytes, bBytes) }
        }), let order {
            return order
        }
        let aBytes = Array(a.utf8), bBytes = Array(b.utf8)
        return aBytes.withUnsafeBufferPointer { x in bBytes.withUnsafeBufferPointer { y in compareUTF16(x, y) } }
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

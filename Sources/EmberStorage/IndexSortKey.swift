import EmberCore

/// A child's place in a value or child order as bytes whose plain byte order (SQLite's order
/// of BLOBs, `memcmp`) is exactly ``IndexedValueKey/compare(_:_:)``: the form in which the
/// store keeps an index (``ServerStore/queryIndex(at:_:_:)``).
///
/// Layout: the value, then the key, each self-delimiting, so that no encoding is a prefix of a
/// different one and the first differing byte decides.
///
/// | part | bytes |
/// |---|---|
/// | `null` / a server value / `false` / `true` | `01` / `02` / `03` / `04` |
/// | a number | `05`, the largest double not above it (8 bytes, sign-flipped so that bytes order as numbers), what an integer exceeds it by (2 bytes) |
/// | a string | `06`, its text (below), `00 01` |
/// | any object | `07` (all objects tie) |
/// | an integer key (`"12"`, `"-3"`) | `01`, the value (4 bytes, sign-flipped), its length in bytes (2 bytes), its text, `00 01` |
/// | any other key | `02`, its text, `00 01` |
///
/// Text is UTF-8 with two changes: the lead bytes of characters above U+FFFF (`F0`–`F4`) move
/// below those of U+E000–U+FFFF (`EE`, `EF`), so that bytes order as UTF-16 code units do
/// (JavaScript's and Firebase's string order; ``StringOrder/compareUTF16(_:_:)``); and a zero
/// byte is written `00 FF`, so that the terminator `00 01` sorts before any continuation.
/// A query bound (``init(bound:)``) is the value followed by nothing (before every key of that
/// value) or by `FF` (after every key).
public struct IndexSortKey: Hashable, Sendable {
    /// The encoded bytes.
    public private(set) var bytes: [UInt8]

    /// The bytes as they are.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The sort key of a child at `key` whose ordered-by value is `value`.
    /// - Complexity: O(m) in the length of the value's text and the key.
    public init(_ key: IndexedValueKey) {
        bytes = []
        bytes.reserveCapacity(24)
        Self.append(key.value, to: &bytes)
        Self.append(key.key, to: &bytes)
    }

    /// A query's bound: before (``IndexPosition/Key-swift.enum/min``) or after
    /// (``IndexPosition/Key-swift.enum/max``) every child with its value, or exactly at a key.
    /// - Complexity: O(m) in the length of the value's text and the key.
    public init(bound position: IndexPosition) {
        bytes = []
        Self.append(IndexedValueKey.Value(position.value), to: &bytes)
        switch position.key {
        case .min: break
        case .max: bytes.append(0xFF)
        case .key(let key): Self.append(key, to: &bytes)
        }
    }

    /// The key of the child this sort key places, or `nil` when the bytes are not a child's
    /// sort key (a bound, or damaged bytes).
    /// - Complexity: O(n) in the bytes.
    public var childKey: ChildKey? {
        var index = 0
        guard let rank = bytes.first else { return nil }
        index = 1
        switch rank {
        case 0x01...0x04, 0x07: break
        case 0x05: index += 10
        case 0x06:
            guard let end = Self.endOfText(bytes, from: index) else { return nil }
            index = end
        default: return nil
        }
        guard index < bytes.count else { return nil }
        let kind = bytes[index]
        index += 1
        switch kind {
        case 0x01: index += 6
        case 0x02: break
        default: return nil
        }
        guard index <= bytes.count, let end = Self.endOfText(bytes, from: index), end == bytes.count else { return nil }
        let name = Self.decodeText(bytes[index..<(end - 2)])
        return ChildKey(unchecked: name)
    }

    // MARK: Encoding

    private static func append(_ value: IndexedValueKey.Value, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(0x01)
        case .object: bytes.append(0x07)
        case .leaf(let leaf):
            switch leaf {
            case .deferred: bytes.append(0x02)
            case .bool(let flag): bytes.append(flag ? 0x04 : 0x03)
            case .string(let text):
                bytes.append(0x06)
                appendText(text, to: &bytes)
            case .int(let integer):
                bytes.append(0x05)
                // The largest double not above the integer, and the exact rest (under 2,048:
                // the gap between doubles near 2^63).
                var double = Double(integer)
                if double >= 0x1p63 || Int64(double) > integer { double = double.nextDown }
                appendDouble(double, to: &bytes)
                appendBigEndian(UInt16(integer - Int64(double)), to: &bytes)
            case .double(let double):
                bytes.append(0x05)
                appendDouble(double == 0 ? 0 : double, to: &bytes)
                appendBigEndian(UInt16(0), to: &bytes)
            }
        }
    }

    private static func append(_ key: ChildKey, to bytes: inout [UInt8]) {
        if let integer = key.integerValue {
            bytes.append(0x01)
            appendBigEndian(UInt32(bitPattern: integer) ^ 0x8000_0000, to: &bytes)
            appendBigEndian(UInt16(clamping: key.name.utf8.count), to: &bytes)
        } else {
            bytes.append(0x02)
        }
        appendText(key.name, to: &bytes)
    }

    /// A double as 8 bytes that order as the numbers do (negative zero is zero's).
    private static func appendDouble(_ double: Double, to bytes: inout [UInt8]) {
        let bits = double.bitPattern
        appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &bytes)
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        var shift = T.bitWidth - 8
        while shift >= 0 {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            shift -= 8
        }
    }

    private static func appendText(_ text: String, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case 0x00: bytes += [0x00, 0xFF]
            case 0xEE, 0xEF: bytes.append(byte + 5)
            case 0xF0...0xF4: bytes.append(byte - 2)
            default: bytes.append(byte)
            }
        }
        bytes += [0x00, 0x01]
    }

    // MARK: Decoding

    /// The index just past the terminator of the text starting at `start`.
    private static func endOfText(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 0x00 {
                if bytes[index + 1] == 0x01 { return index + 2 }
                index += 2
            } else {
                index += 1
            }
        }
        return nil
    }

    private static func decodeText(_ encoded: ArraySlice<UInt8>) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let byte = encoded[index]
            switch byte {
            case 0x00:
                utf8.append(0x00)
                index += 1
            case 0xF3, 0xF4: utf8.append(byte - 5)
            case 0xEE...0xF2: utf8.append(byte + 2)
            default: utf8.append(byte)
            }
            index += 1
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}

extension IndexSortKey: Comparable {
    /// Byte order, as SQLite compares BLOBs.
    public static func < (lhs: IndexSortKey, rhs: IndexSortKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

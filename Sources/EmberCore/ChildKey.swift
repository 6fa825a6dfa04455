/// The name of a child: one segment of a ``Path``, ordered the way Firebase orders keys.
///
/// Keys that parse as a 32-bit signed integer (an optional `-`, then digits, leading zeros
/// allowed, within −2³¹…2³¹−1) sort first, numerically; when two of them are numerically equal
/// (`"7"`, `"07"`) the shorter sorts first. All other keys follow in UTF-16 code-unit order, as in
/// the JavaScript and Java SDKs. Equality is exact: two keys are equal only when their UTF-8 bytes
/// are (no Unicode normalisation), because the database treats them as different children.
///
/// Canonical integer keys (`"0"`, `"42"`, `"-7"`) are stored as the integer itself, so array
/// indexes and numeric keys cost no string storage and compare with one integer comparison.
public struct ChildKey: Sendable {
    @usableFromInline
    enum Storage: Sendable {
        /// A key that is the canonical decimal form of a 32-bit integer.
        case integer(Int32)
        /// A key that parses as a 32-bit integer but not in canonical form (`"007"`, `"-0"`).
        /// Only the string is stored (rare keys; parsed again when compared) so that a key
        /// stays 16 bytes.
        case paddedInteger(String)
        /// Any other key.
        case string(String)
    }

    @usableFromInline
    let storage: Storage

    /// Creates a key without validating it. Use for keys that came out of a validated tree, or
    /// for the metadata keys (`.priority`, `.value`, `.sv`, `.info`).
    /// - Complexity: O(k) in the length of the key (to classify integer keys).
    public init(unchecked name: String) {
        if let value = Self.parseInteger(name) {
            if Self.isCanonical(integer: name) {
                storage = .integer(value)
            } else {
                storage = .paddedInteger(name)
            }
        } else {
            storage = .string(name)
        }
    }

    /// Whether `name`, a key ``parseInteger(_:)`` accepted, is the canonical decimal form of its
    /// value (`String(value) == name`), judged by its first bytes: no leading zero (`"0"` alone
    /// excepted) and no `"-0"`. Formatting the value to compare cost a key about 400
    /// instructions.
    /// - Complexity: O(1).
    static func isCanonical(integer name: String) -> Bool {
        var utf8 = name.utf8.makeIterator()
        guard let first = utf8.next() else { return false }
        if first == UInt8(ascii: "-") { return utf8.next() != UInt8(ascii: "0") }
        return first != UInt8(ascii: "0") || utf8.next() == nil
    }

    /// Creates the key for an integer, as an array index is stored.
    public init(_ integer: Int32) {
        storage = .integer(integer)
    }

    /// Creates a key from user input, enforcing the key rules.
    ///
    /// A key is 1 to 768 bytes of UTF-8 and contains none of `.` `$` `#` `[` `]` `/` nor an
    /// ASCII control character (0x00–0x1F, 0x7F).
    /// - Throws: ``DatabaseError`` with code `invalid_key`, saying which rule the key breaks.
    public init(validating name: String) throws(DatabaseError) {
        if let problem = Self.problem(with: name) {
            throw DatabaseError(.invalidKey(key: name, reason: problem))
        }
        self.init(unchecked: name)
    }

    /// The key as a string.
    public var name: String {
        switch storage {
        case .integer(let value): String(value)
        case .paddedInteger(let name), .string(let name): name
        }
    }

    /// The key's value as a 32-bit integer, when it parses as one (`"007"` is 7).
    public var integerValue: Int32? {
        switch storage {
        case .integer(let value): value
        case .paddedInteger(let name): Self.parseInteger(name)
        case .string: nil
        }
    }

    /// What is wrong with `name` as a key, or `nil` when it is a valid key.
    public static func problem(with name: String) -> String? {
        if name.isEmpty { return "a key must not be empty" }
        // The bytes in place (walking the UTF-8 view byte by byte cost each key of every path
        // the server checks a few hundred instructions).
        var name = name
        return name.withUTF8 { bytes -> String? in
            if bytes.count > Limits.maxKeyBytes {
                return "a key is at most \(Limits.maxKeyBytes) bytes of UTF-8, this one has \(bytes.count)"
            }
            // Every forbidden character is ASCII: the UTF-8 bytes are checked (a byte of a longer
            // character is 0x80 or more, never one of them).
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "#"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "/"):
                    return "a key must not contain \"\(Unicode.Scalar(byte))\""
                case _ where byte < 0x20 || byte == 0x7F:
                    return "a key must not contain the control character U+\(hex4(UInt32(byte)))"
                default:
                    continue
                }
            }
            return nil
        }
    }

    /// What is wrong with this key as a key a user may write, or `nil`: a canonical integer key
    /// is always valid (checked without making its text).
    public var problem: String? {
        switch storage {
        case .integer: nil
        case .paddedInteger(let name), .string(let name): Self.problem(with: name)
        }
    }

    /// Parses a key the way the SDKs' `tryParseInt` does: `^-?\d{1,}$` with at most 10
    /// significant digits after leading zeros, within the 32-bit signed range.
    @usableFromInline
    static func parseInteger(_ name: String) -> Int32? {
        var utf8 = name.utf8.makeIterator()
        guard var byte = utf8.next() else { return nil }
        let negative = byte == UInt8(ascii: "-")
        if negative {
            guard let next = utf8.next() else { return nil }
            byte = next
        }
        var value: Int64 = 0
        var significant = 0
        while true {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let digit = Int64(byte - 0x30)
            if significant > 0 || digit != 0 {
                significant += 1
                if significant > 10 { return nil }
                value = value * 10 + digit
            }
            guard let next = utf8.next() else { break }
            byte = next
        }
        if negative { value = -value }
        guard value >= Int64(Int32.min) && value <= Int64(Int32.max) else { return nil }
        return Int32(value)
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

extension ChildKey {
    /// `.priority`: the metadata key that holds a node's priority.
    public static let priority = ChildKey(unchecked: ".priority")

    /// Whether this is ``priority``: compared in place (equality with the static key copied
    /// an optional key, reached the static and compared bytes, 150 instructions; several a
    /// write, callgrind).
    /// - Complexity: O(1).
    @inlinable
    public var isPriority: Bool {
        // Bytes, as equality compares keys (`==` on strings is Unicode-aware).
        if case .string(let name) = storage { return name.utf8.count == 9 && StringOrder.bytesEqual(name, ".priority") }
        return false
    }

    /// `.value`: the metadata key that holds a leaf's value in export form.
    public static let value = ChildKey(unchecked: ".value")
    /// `.info`: the root of the client-local metadata tree (`.info/connected`, ...).
    public static let info = ChildKey(unchecked: ".info")
    /// `.sv`: the key of a server-value placeholder.
    public static let serverValue = ChildKey(unchecked: ".sv")

    /// Whether the key is one of the metadata keys that start with `.`.
    public var isMetadata: Bool {
        if case .string(let name) = storage { return name.utf8.first == UInt8(ascii: ".") }
        return false
    }
}

extension ChildKey: Comparable {
    /// Firebase key order: integer keys first, numerically (shorter first on a tie), then the
    /// other keys in UTF-16 code-unit order.
    /// - Complexity: O(1) for two canonical integer keys; O(k) otherwise.
    @inlinable
    public static func < (lhs: ChildKey, rhs: ChildKey) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Three-way comparison in Firebase key order: negative, zero or positive.
    @inlinable
    public static func compare(_ lhs: ChildKey, _ rhs: ChildKey) -> Int {
        switch (lhs.storage, rhs.storage) {
        case (.integer(let a), .integer(let b)):
            return a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)):
            return StringOrder.compareUTF16(a, b)
        case (.integer, .string), (.paddedInteger, .string):
            return -1
        case (.string, .integer), (.string, .paddedInteger):
            return 1
        default:
            return compareIntegerKeys(lhs, rhs)
        }
    }

    @usableFromInline
    static func compareIntegerKeys(_ lhs: ChildKey, _ rhs: ChildKey) -> Int {
        let a = lhs.integerValue!, b = rhs.integerValue!
        if a != b { return a < b ? -1 : 1 }
        let aName = lhs.name, bName = rhs.name
        let aLength = aName.utf8.count, bLength = bName.utf8.count
        if aLength != bLength { return aLength < bLength ? -1 : 1 }
        // Same value, same length ("-0" and "00"): any fixed order keeps the order total.
        return StringOrder.compareUTF16(aName, bName)
    }
}

extension ChildKey: Hashable {
    @inlinable
    public static func == (lhs: ChildKey, rhs: ChildKey) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.integer(let a), .integer(let b)): a == b
        case (.string(let a), .string(let b)): StringOrder.bytesEqual(a, b)
        case (.paddedInteger(let a), .paddedInteger(let b)): StringOrder.bytesEqual(a, b)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .integer(let value):
            hasher.combine(0 as UInt8)
            hasher.combine(value)
        case .paddedInteger(let name), .string(let name):
            // The bytes, as equality compares them, in one call (a byte at a time made hashing
            // paths a tenth of a replay's time); the length keeps ["ab", "c"] apart from
            // ["a", "bc"] in a path's hash.
            hasher.combine(1 as UInt8)
            hasher.combine(name.utf8.count)
            var name = name
            name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// The key's hash in a `Set` or `Dictionary` whose table has this `seed`: SipHash-1-3 of
    /// the integer or of the UTF-8 bytes, as equality compares them, under this process's random
    /// key (``SipHash``) with the table's seed mixed in: the same function `Hasher` computes, in
    /// one call, without its streaming buffer.
    /// - Complexity: O(k) in the length of the key.
    public func _rawHashValue(seed: Int) -> Int {
        Int(truncatingIfNeeded: sipHash(seed: UInt64(truncatingIfNeeded: seed)))
    }

    /// SipHash-1-3 of the key (its integer, or its UTF-8 bytes) under this process's key with
    /// `seed` mixed into its first half.
    /// - Complexity: O(k) in the length of the key.
    func sipHash(seed: UInt64) -> UInt64 {
        let key = SipHash.processKey
        switch storage {
        case .integer(let value):
            return SipHash.hash(word: UInt64(UInt32(bitPattern: value)), k0: key.0 ^ seed, k1: key.1)
        case .paddedInteger(let name), .string(let name):
            var name = name
            return name.withUTF8 { SipHash.hash(UnsafeRawBufferPointer($0), k0: key.0 ^ seed, k1: key.1) }
        }
    }
}

extension ChildKey: CustomStringConvertible, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public var description: String { name }

    /// A literal key, as in `node.child("name")`. Literals are not validated: a literal is the
    /// programmer's, not the user's.
    public init(stringLiteral value: String) { self.init(unchecked: value) }

    public init(integerLiteral value: Int32) { self.init(value) }
}

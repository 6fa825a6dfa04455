/// The value of a leaf: a boolean, a number, a string, or a server value still to be resolved.
///
/// Numbers are exact 64-bit integers when integral and doubles otherwise. A double with an
/// integral value strictly between -2^63 and 2^63 is stored as an integer (so `1.0` and `1` are
/// the same value), and `-0.0` becomes `0`; NaN and infinities are not values at all. The doubles
/// ±2^63 stay doubles: they are where every integral number beyond 64 bits rounds to (the literal
/// `-9223372036854775809` is the double -2^63), so they cannot claim to be the exact integer.
public enum LeafValue: Sendable {
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    /// A server value placeholder (`{".sv": ...}`), resolved by the server when written.
    case deferred(ServerValue)

    /// A number in normal form: integral doubles strictly between -2^63 and 2^63 become integers.
    /// - Returns: `nil` for NaN and infinities.
    public init?(normalizing value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(.towardZero), value > -0x1p63, value < 0x1p63 {
            self = .int(Int64(value))
        } else {
            self = .double(value)
        }
    }

    /// The numeric value as a double, for numbers.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The rank of the value's type in leaf ordering: deferred < boolean < number < string.
    var typeRank: Int {
        switch self {
        case .deferred: 0
        case .bool: 1
        case .int, .double: 2
        case .string: 3
        }
    }

    /// Three-way comparison in Firebase value order: by type, then false < true, numbers
    /// numerically, strings in UTF-16 code-unit order.
    public static func compare(_ lhs: LeafValue, _ rhs: LeafValue) -> Int {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)):
            return a == b ? 0 : (a ? 1 : -1)
        case (.string(let a), .string(let b)):
            return StringOrder.compareUTF16(a, b)
        case (.int(let a), .int(let b)):
            return a < b ? -1 : (a == b ? 0 : 1)
        case (.int, .double), (.double, .int), (.double, .double):
            return compareNumbers(lhs, rhs)
        case (.deferred, .deferred):
            return 0
        default:
            return lhs.typeRank < rhs.typeRank ? -1 : (lhs.typeRank == rhs.typeRank ? 0 : 1)
        }
    }

    /// Compares an int and a double (or two doubles) exactly.
    private static func compareNumbers(_ lhs: LeafValue, _ rhs: LeafValue) -> Int {
        switch (lhs, rhs) {
        case (.int(let a), .double(let b)): return -compareDouble(b, withInt: a)
        case (.double(let a), .int(let b)): return compareDouble(a, withInt: b)
        case (.double(let a), .double(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        default: return 0
        }
    }

    private static func compareDouble(_ double: Double, withInt int: Int64) -> Int {
        if double >= 0x1p63 { return 1 }
        if double < -0x1p63 { return -1 }
        // Within range: compare the integral parts exactly, then the fraction.
        let whole = Int64(double.rounded(.down))
        if whole != int { return whole < int ? -1 : 1 }
        return double > double.rounded(.down) ? 1 : 0
    }
}

extension LeafValue: Hashable {
    public static func == (lhs: LeafValue, rhs: LeafValue) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a), .bool(let b)): a == b
        case (.string(let a), .string(let b)): StringOrder.bytesEqual(a, b)
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.int, .double), (.double, .int): compare(lhs, rhs) == 0
        case (.deferred(let a), .deferred(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(Double(value))
        case .double(let value): hasher.combine(value)
        case .string(let value): for byte in value.utf8 { hasher.combine(byte) }
        case .deferred(let value): hasher.combine(value)
        }
    }
}

extension LeafValue {
    /// The value as JSON: a server value as its `{".sv": …}` placeholder.
    public var jsonValue: JSONValue {
        switch self {
        case .bool(let flag): .bool(flag)
        case .int(let number): .int(number)
        case .double(let number): .double(number)
        case .string(let text): .string(text)
        case .deferred(.timestamp): .object([(".sv", .string("timestamp"))])
        case .deferred(.increment(let delta)): .object([(".sv", .object([("increment", delta.jsonValue)]))])
        }
    }
}

extension LeafValue: CustomStringConvertible {
    /// The value as compact JSON.
    public var description: String {
        var out = ""
        JSONWriter.writeLeaf(self, to: &out)
        return out
    }
}

import Crypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Node {
    /// The node's hash as the Firebase SDKs and server compute it: base64 of the SHA-1 of a
    /// canonical text. Transactions send it to guard a write; it is empty for an empty node.
    ///
    /// Leaves hash `priority:<p>:` (when prioritized) then `<type>:<value>`, with numbers as the
    /// 16 hex digits of their IEEE-754 double; objects hash their priority then `:<key>:<hash>`
    /// for each child in priority order.
    /// - Complexity: O(n) in the size of the tree.
    public var hashString: String {
        hashString(numbers: .exact)
    }

    /// How a hash writes numbers.
    public enum NumberBits: Sendable {
        /// Each number's IEEE-754 bits, as the Android SDK writes them (firebase-android-sdk
        /// `core/utilities/Utilities.java`, `doubleToHashString`: `Double.doubleToLongBits`).
        case exact
        /// As the Web SDK's `doubleToIEEE754String` computes them (firebase-js-sdk
        /// `packages/database/src/core/util/util.ts`), which takes a number's exponent from
        /// `Math.floor(Math.log(v) / Math.LN2)`: wrong by one next to a power of two (the
        /// largest double below many of them, such as 255.99999999999997; 2^k − 1 for k from
        /// 48 to 53, `Number.MAX_SAFE_INTEGER` among them; their negatives; normal numbers
        /// below 2^-971), where its text is another number's.
        case javaScript
    }

    /// Whether `hash`, sent by a client to guard a write or to say what it has cached, is this
    /// node's: its hash, or (when the node holds a number the Web SDK writes differently) the
    /// hash the Web SDK computes for it.
    ///
    /// Ember is deliberately more lenient than Firebase here: with the exact hash alone, a
    /// Web SDK transaction on a location holding, say, `9007199254740991` is refused as stale
    /// on every try and fails with `maxretry`, since the SDK's hash of the value it holds is
    /// never the server's. Both hashes are of the same current value, so the guard still
    /// refuses a write whose client saw another value, with one exception the Web SDK brings:
    /// its text of a number it writes wrongly is a neighbour's exact text (2^53 − 1 hashes as
    /// 2^53 does), so a write guarded by the neighbour's hash is taken too. The two differ in
    /// their last bit; the Web SDK itself cannot tell them apart.
    /// - Complexity: O(n) in the size of the tree; twice that on a mismatch when the tree holds
    ///   a number the two ways write differently.
    public func hasHash(_ hash: String) -> Bool {
        if hashString == hash { return true }
        guard containsJavaScriptMisfit else { return false }
        return hashString(numbers: .javaScript) == hash
    }

    /// Whether a number in the tree (or a priority) hashes differently in the Web SDK.
    /// - Complexity: O(n).
    var containsJavaScriptMisfit: Bool {
        if let priority, Self.misfits(priority.leafValue) { return true }
        switch base {
        case .empty: return false
        case .leaf(let value): return Self.misfits(value)
        default: return children.contains { $0.node.containsJavaScriptMisfit }
        }
    }

    private static func misfits(_ value: LeafValue) -> Bool {
        guard let number = value.doubleValue else { return false }
        return javaScriptBits(number) != number.bitPattern
    }

    /// The IEEE-754 bits of `value` as the Web SDK's `doubleToIEEE754String` computes them:
    /// the exponent from `floor(log(v) / ln 2)`, the fraction `round(v · 2^(52 − e) − 2^52)`
    /// packed into 52 bits as JavaScript's `% 2` and `Math.floor(f / 2)` pack it (a negative
    /// fraction, when the exponent came out one too high, in two's complement).
    static func javaScriptBits(_ value: Double) -> UInt64 {
        guard value.isFinite else { return value.bitPattern }
        let sign: UInt64 = value.sign == .minus ? 1 << 63 : 0
        if value == 0 { return sign }
        let magnitude = abs(value)
        let exponent: Int64
        let fraction: Double
        if magnitude >= 0x1p-1022 {
            let power = min(Int64((log(magnitude) / ln2).rounded(.down)), 1023)
            exponent = power + 1023
            fraction = javaScriptRound(magnitude * Double(sign: .plus, exponent: Int(52 - power), significand: 1) - 0x1p52)
        } else {
            exponent = 0
            fraction = javaScriptRound(magnitude / 0x1p-1074)
        }
        // 2^52 (an exponent one too low) packs as zero: only 52 bits are taken. Below 2^-971,
        // `Math.pow(2, 52 - e)` overflows to infinity, and an infinite fraction packs as zero
        // (`Infinity % 2` is `NaN`, which is falsy).
        let bits = fraction.isFinite ? UInt64(bitPattern: Int64(fraction)) & ((1 << 52) - 1) : 0
        return sign | (UInt64(bitPattern: exponent) & 0x7FF) << 52 | bits
    }

    /// JavaScript's `Math.round`: the nearest integer, halves towards positive infinity.
    private static func javaScriptRound(_ value: Double) -> Double {
        let down = value.rounded(.down)
        // Exact: a double minus its floor is representable.
        return value - down >= 0.5 ? down + 1 : down
    }

    /// JavaScript's `Math.LN2`.
    private static let ln2 = 0.6931471805599453

    /// The node's hash, its numbers written as `numbers` says.
    public func hashString(numbers: NumberBits) -> String {
        var preimage = hashPreimage(numbers: numbers)
        if preimage.isEmpty { return "" }
        let digest = preimage.withUTF8 { Insecure.SHA1.hash(data: UnsafeRawBufferPointer($0)) }
        return digest.withUnsafeBytes { Self.base64($0) }
    }

    /// The standard base64 alphabet.
    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `bytes` in standard base64 with padding (what `Data.base64EncodedString()` gives),
    /// written straight into the string: a transaction hashes on every attempt.
    /// - Complexity: O(n).
    static func base64(_ bytes: UnsafeRawBufferPointer) -> String {
        let length = (bytes.count + 2) / 3 * 4
        return String(unsafeUninitializedCapacity: length) { output in
            var written = 0
            var index = 0
            while index < bytes.count {
                let first = bytes[index]
                let second = index + 1 < bytes.count ? bytes[index + 1] : 0
                let third = index + 2 < bytes.count ? bytes[index + 2] : 0
                output[written] = base64Alphabet[Int(first >> 2)]
                output[written + 1] = base64Alphabet[Int((first & 0x03) << 4 | second >> 4)]
                output[written + 2] = index + 1 < bytes.count ? base64Alphabet[Int((second & 0x0F) << 2 | third >> 6)] : UInt8(ascii: "=")
                output[written + 3] = index + 2 < bytes.count ? base64Alphabet[Int(third & 0x3F)] : UInt8(ascii: "=")
                written += 4
                index += 3
            }
            return written
        }
    }

    /// `number:` and the 16 hex digits of `bits`, written straight into the string.
    private static func numberHashText(_ bits: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        let prefix = Array("number:".utf8)
        return String(unsafeUninitializedCapacity: prefix.count + 16) { output in
            for (offset, byte) in prefix.enumerated() { output[offset] = byte }
            for digit in 0..<16 { output[prefix.count + digit] = digits[Int(bits >> UInt64(60 - 4 * digit) & 0xF)] }
            return prefix.count + 16
        }
    }

    /// The text that is hashed.
    var hashPreimage: String { hashPreimage(numbers: .exact) }

    /// The text that is hashed, its numbers written as `numbers` says.
    func hashPreimage(numbers: NumberBits) -> String {
        var text = ""
        if let priority {
            text += "priority:" + Self.hashText(of: priority.leafValue, numbers: numbers) + ":"
        }
        switch base {
        case .empty:
            return ""
        case .leaf(let value):
            text += Self.hashText(of: value, numbers: numbers)
        default:
            var any = false
            for child in childrenInPriorityOrder {
                let childHash = child.node.hashString(numbers: numbers)
                if childHash.isEmpty { continue }
                text += ":" + child.key.name + ":" + childHash
                any = true
            }
            if !any && priority == nil { return "" }
        }
        return text
    }

    /// The children in priority order (the default query order).
    /// - Complexity: O(n).
    public var childrenInPriorityOrder: [NamedNode] {
        if let index = priorityIndex { return index.map { NamedNode($0.key.key, $0.value) } }
        return children.map { $0 }
    }

    static func hashText(of value: LeafValue, numbers: NumberBits = .exact) -> String {
        switch value {
        case .bool(let flag): return "boolean:" + (flag ? "true" : "false")
        case .int, .double:
            let number = value.doubleValue!
            return numberHashText(numbers == .exact ? number.bitPattern : javaScriptBits(number))
        case .string(let text): return "string:" + text
        case .deferred: return "deferred:" + value.description
        }
    }
}

import Crypto

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
        var preimage = hashPreimage
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
    var hashPreimage: String {
        var text = ""
        if let priority {
            text += "priority:" + Self.hashText(of: priority.leafValue) + ":"
        }
        switch base {
        case .empty:
            return ""
        case .leaf(let value):
            text += Self.hashText(of: value)
        default:
            var any = false
            for child in childrenInPriorityOrder {
                let childHash = child.node.hashString
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

    static func hashText(of value: LeafValue) -> String {
        switch value {
        case .bool(let flag): return "boolean:" + (flag ? "true" : "false")
        case .int, .double: return numberHashText(value.doubleValue!.bitPattern)
        case .string(let text): return "string:" + text
        case .deferred: return "deferred:" + value.description
        }
    }
}

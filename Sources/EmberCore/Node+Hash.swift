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
        let preimage = hashPreimage
        if preimage.isEmpty { return "" }
        let digest = Insecure.SHA1.hash(data: Array(preimage.utf8))
        return Data(digest).base64EncodedString()
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
        case .int, .double: return "number:" + String(value.doubleValue!.bitPattern, radix: 16).leftPadded(16)
        case .string(let text): return "string:" + text
        case .deferred: return "deferred:" + value.description
        }
    }
}

/// The parameters of a URL's query, percent-decoded (`+` is a space, as servlets and
/// `URLSearchParams` read it: `../shared/reference/firebase-network.md` §1.1).
struct QueryString: Sendable {
    /// Name and value pairs, in order.
    let items: [(name: String, value: String)]

    /// Parses the part of `target` after its first `?` (nothing if there is none).
    init(target: String) {
        guard let mark = target.firstIndex(of: "?") else {
            items = []
            return
        }
        var items: [(String, String)] = []
        for pair in target[target.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            items.append((Self.decode(parts[0], plusIsSpace: true), parts.count > 1 ? Self.decode(parts[1], plusIsSpace: true) : ""))
        }
        self.items = items
    }

    /// The last value of `name`.
    subscript(name: String) -> String? {
        items.last { $0.name == name }?.value
    }

    /// The path part of `target`: before `?` and `#`.
    static func path(of target: String) -> Substring {
        target.prefix { $0 != "?" && $0 != "#" }
    }

    /// `text` with `%XX` escapes decoded (and `+` as a space when `plusIsSpace`); a malformed
    /// escape is kept as it is. Invalid UTF-8 becomes U+FFFD.
    static func decode(_ text: Substring, plusIsSpace: Bool) -> String {
        String(decoding: decodedBytes(text, plusIsSpace: plusIsSpace), as: UTF8.self)
    }

    /// `text` decoded as ``decode(_:plusIsSpace:)`` does, or `nil` when the bytes its escapes
    /// give are not UTF-8 (`%FF` and `%FE` would both become U+FFFD: two keys made one).
    static func decodeValidating(_ text: Substring, plusIsSpace: Bool) -> String? {
        let bytes = decodedBytes(text, plusIsSpace: plusIsSpace)
        return String(validating: bytes, as: UTF8.self)
    }

    private static func decodedBytes(_ text: Substring, plusIsSpace: Bool) -> [UInt8] {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return Array(text.utf8)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let utf8 = Array(text.utf8)
        var index = 0
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count, let high = hex(utf8[index + 1]), let low = hex(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return bytes
    }
}

/// A location in the tree: a sequence of ``ChildKey``s from the root.
///
/// Written as `/users/alice/name` (a leading or trailing `/` and empty segments are ignored, so
/// `users//alice/` is the same path). The root is the empty path, written `/`. Paths compare
/// key by key in Firebase key order, so a parent sorts before its descendants.
public struct Path: Sendable, Hashable {
    /// The keys from the root down.
    public private(set) var keys: [ChildKey]

    /// The root of the tree.
    public static let root = Path(keys: [])

    /// Creates a path from keys that are already valid.
    public init(keys: [ChildKey]) {
        self.keys = keys
    }

    /// Parses a path typed by a user, validating every key and the depth.
    ///
    /// `.info` is accepted as the first key (the client-local metadata tree); any other key that
    /// contains `.`, `$`, `#`, `[`, `]` or a control character is an error.
    /// - Throws: ``DatabaseError`` `invalid_path` naming the bad segment, or `path_too_deep`.
    /// - Complexity: O(n) in the length of the string.
    public init(validating string: String) throws(DatabaseError) {
        var keys: [ChildKey] = []
        for name in Self.segments(of: string) {
            // The byte count first: a `String` comparison is Unicode-aware, and costs more.
            if keys.isEmpty && name.utf8.count == 5 && name == ".info" {
                keys.append(.info)
                continue
            }
            if let problem = ChildKey.problem(with: name) {
                throw DatabaseError(.invalidPath(path: string, reason: "segment \(DatabaseError.quote(name)): \(problem)"))
            }
            keys.append(ChildKey(unchecked: name))
        }
        if keys.count > Limits.maxDepth {
            throw DatabaseError(.pathTooDeep(path: string, depth: keys.count))
        }
        self.keys = keys
    }

    /// This path with the relative path `string` below it, parsed and checked as
    /// ``init(validating:)`` does, then for depth.
    ///
    /// One key (`ref:child(id)`, the usual case) is checked and appended as it is: no array of
    /// segments nor of keys is made for it (1,500 instructions of a Lua loop's `child`,
    /// callgrind).
    /// - Throws: `invalid_path` for a bad key, `path_too_deep` when the result is too deep.
    /// - Complexity: O(n) in the length of `string` and of this path.
    public func appending(validating string: String) throws(DatabaseError) -> Path {
        let full: Path
        // A valid key is never empty and holds no `/` nor `.` (so is not `.info`): it is the
        // whole path. Anything else is parsed as a path, with its errors.
        if ChildKey.problem(with: string) == nil {
            full = child(ChildKey(unchecked: string))
        } else {
            full = appending(try Path(validating: string))
        }
        try full.checkDepth()
        return full
    }

    /// Parses the path a write targets: as ``init(validating:)``, except that the last segment
    /// may be `.priority` (the node's priority; it adds no level), as Firebase accepts in an
    /// update's keys and in the puts `setPriority` sends (validation.ts,
    /// `validateFirebaseMergePaths`; `setPriority` writes `path/.priority`).
    public init(validatingWriteTarget string: String) throws(DatabaseError) {
        // Compared as UTF-8 bytes: `hasSuffix` compares characters (Unicode-aware), which cost
        // more than parsing the path.
        let utf8 = string.utf8
        let trimmed = utf8.last == UInt8(ascii: "/") ? utf8.dropLast() : utf8[...]
        let suffix = ".priority".utf8
        let parent = trimmed.dropLast(suffix.count)
        if trimmed.suffix(suffix.count).elementsEqual(suffix), parent.isEmpty || parent.last == UInt8(ascii: "/") {
            self = try Path(validating: String(Substring(parent))).child(.priority)
        } else {
            self = try Path(validating: string)
        }
    }

    /// Parses a path without validating it: for paths that Ember produced itself.
    /// - Complexity: O(n) in the length of the string.
    public init(unchecked string: String) {
        keys = Self.segments(of: string).map { ChildKey(unchecked: $0) }
    }

    /// The non-empty segments of `string` between `/`s. Split on the UTF-8 bytes: `/` is one
    /// byte that never occurs inside another character, and splitting by `Character` (grapheme
    /// clusters) made parsing a path cost thousands of instructions a key.
    /// A string with no `/` (`ref:child(k)` in a loop, a push id) is its own one segment, not
    /// decoded again.
    private static func segments(of string: String) -> [String] {
        var text = string
        return text.withUTF8 { bytes in
            if !bytes.contains(UInt8(ascii: "/")) { return bytes.isEmpty ? [] : [string] }
            var segments: [String] = []
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                if index > start {
                    segments.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                }
                start = index + 1
            }
            return segments
        }
    }

    /// Checks the depth of a path built without validation (by appending, or from the wire).
    /// - Throws: `path_too_deep` when it is deeper than ``Limits/maxDepth``.
    /// A trailing `.priority` (a node's priority) adds no level.
    public func checkDepth() throws(DatabaseError) {
        let depth = isPriority ? keys.count - 1 : keys.count
        if depth > Limits.maxDepth {
            throw DatabaseError(.pathTooDeep(path: description, depth: depth))
        }
    }

    /// Whether the path names a node's priority (its last key is `.priority`).
    /// - Complexity: O(1).
    @inlinable
    public var isPriority: Bool { keys.last?.isPriority ?? false }

    /// Whether this is the root.
    public var isEmpty: Bool { keys.isEmpty }

    /// The number of keys.
    public var count: Int { keys.count }

    /// The first key, or `nil` at the root.
    public var front: ChildKey? { keys.first }

    /// The last key, or `nil` at the root.
    public var back: ChildKey? { keys.last }

    /// Moves to the parent: removes and returns the last key (`nil` at the root). Walking up
    /// this way changes one array in place, where `parent` makes a new one at each level.
    /// - Complexity: O(1), after one copy when the keys are shared.
    @discardableResult
    public mutating func removeLastKey() -> ChildKey? {
        keys.popLast()
    }

    /// The path without its first key (the root stays the root).
    /// - Complexity: O(n).
    public var popFront: Path { Path(keys: Array(keys.dropFirst())) }

    /// The parent, or `nil` at the root.
    /// - Complexity: O(n).
    public var parent: Path? { keys.isEmpty ? nil : Path(keys: Array(keys.dropLast())) }

    /// The path of a child.
    /// - Complexity: O(n).
    public func child(_ key: ChildKey) -> Path {
        var copy = self
        copy.keys.append(key)
        return copy
    }

    /// The path of a descendant.
    /// - Complexity: O(n + m).
    public func appending(_ path: Path) -> Path {
        var copy = self
        copy.keys.append(contentsOf: path.keys)
        return copy
    }

    /// Whether `other` is this path or below it.
    /// - Complexity: O(n).
    public func contains(_ other: Path) -> Bool {
        guard keys.count <= other.keys.count else { return false }
        for index in keys.indices where keys[index] != other.keys[index] { return false }
        return true
    }

    /// The path from this path down to `descendant`, or `nil` when `descendant` is not this path
    /// or below it.
    /// - Complexity: O(n).
    public func relative(to descendant: Path) -> Path? {
        guard contains(descendant) else { return nil }
        return Path(keys: Array(descendant.keys[keys.count...]))
    }
}

extension Path: Comparable {
    /// Key by key in Firebase key order; a prefix sorts first.
    /// By index through the keys' buffers: `zip` copied (retained and released) each pair of
    /// keys, 400 instructions a comparison of two 2-key paths (a store's changed paths are kept
    /// sorted with it, callgrind).
    public static func < (lhs: Path, rhs: Path) -> Bool {
        lhs.keys.withUnsafeBufferPointer { a in
            rhs.keys.withUnsafeBufferPointer { b in
                let count = Swift.min(a.count, b.count)
                var index = 0
                while index < count {
                    let order = ChildKey.compare(a[index], b[index])
                    if order != 0 { return order < 0 }
                    index += 1
                }
                return a.count < b.count
            }
        }
    }
}

extension Path: CustomStringConvertible, ExpressibleByStringLiteral {
    /// The path written with a leading `/`: `/users/alice`, or `/` for the root.
    /// - Complexity: O(n) in the length of the text.
    public var description: String {
        guard !keys.isEmpty else { return "/" }
        var text = ""
        for key in keys {
            text += "/"
            text += key.name
        }
        return text
    }

    /// A literal path, not validated (literals are the programmer's).
    public init(stringLiteral value: String) { self.init(unchecked: value) }
}

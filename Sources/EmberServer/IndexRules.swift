import EmberCore

/// The indexes a rules document declares with `.indexOn`: which locations keep their children
/// sorted by value or by a child, so that such queries there are answered from a ``ChildIndex``.
///
/// The rules follow the shape of the data, and `.indexOn` at a location indexes that location's
/// *children*:
///
/// ```json
/// {"rules": {
///     "dinosaurs": {".indexOn": ["height", "ratings/pos"]},
///     "scores": {".indexOn": ".value"},
///     "users": {"$uid": {"posts": {".indexOn": "date"}}}
/// }}
/// ```
///
/// indexes the children of `/dinosaurs` by `height` and by `ratings/pos`, the children of
/// `/scores` by value, and the children of every `/users/<uid>/posts` by `date`. A key starting
/// with `$` is a wildcard that matches any one key; a named key takes precedence over the
/// wildcard beside it. `.indexOn` takes a child path, `.value`, or a list of them (`.key` and
/// `.priority` are accepted and need no index). The other rules (`.read`, `.write`,
/// `.validate`, any other `.`-key) are not looked at here.
public struct IndexRules: Sendable, Hashable {
    /// The rules of one location: its indexes and the rules below it.
    private struct Level: Sendable, Hashable {
        var indexes: [Index] = []
        var named: [ChildKey: Level] = [:]
        /// The name of the wildcard child (without `$`), if there is one.
        var wildcardName: String?
        /// The wildcard child's rules: empty or one element (an array, as a struct cannot hold
        /// an optional of itself).
        var wildcardLevel: [Level] = []

        var wildcard: Level? { wildcardLevel.first }

        /// Whether any index is declared here or below.
        var declaresIndexes: Bool {
            !indexes.isEmpty || named.values.contains { $0.declaresIndexes } || wildcardLevel.contains { $0.declaresIndexes }
        }
    }

    private var root: Level

    private init(root: Level) {
        self.root = root
    }

    /// No indexes at all.
    public static let none = IndexRules(root: Level())

    /// Whether no location declares an index.
    /// - Complexity: O(1).
    public private(set) var isEmpty: Bool = true

    /// Reads the indexes of a rules document: `{"rules": {...}}` or the bare tree of rules (a
    /// document whose only member is an object named `rules` is taken to be the former).
    /// - Throws: ``DatabaseError`` `invalid_rules` naming the place in the document, when the
    ///   document or a location's rules are not objects, when `.indexOn` is not a string or an
    ///   array of strings, when an index is not `.value`, `.key`, `.priority` or a valid child
    ///   path, when a key is not a valid key, or when wildcards clash (two at one location, or
    ///   one named like a wildcard above it).
    public init(json: JSONValue) throws(DatabaseError) {
        guard case .object(let members) = json else {
            throw Self.invalid([], "a rules document must be a JSON object, not \(Self.describe(json))")
        }
        var prefix: [String] = []
        var tree = json
        if members.count == 1, members[0].key == "rules", case .object = members[0].value {
            prefix = ["rules"]
            tree = members[0].value
        }
        var wildcards: [String] = []
        root = try Self.level(tree, at: prefix, wildcards: &wildcards)
        isEmpty = !root.declaresIndexes
    }

    /// Parses a rules document from its source text (see ``init(json:)``). `//` and `/* */`
    /// comments are allowed, as in Firebase rules files.
    /// - Throws: ``DatabaseError`` `malformed_json` for text that is not JSON, and the errors of
    ///   ``init(json:)``.
    public init(jsonText: String) throws(DatabaseError) {
        try self.init(json: try JSONValue(parsing: Self.strippingComments(jsonText)))
    }

    /// The indexes declared for the children of the location at `path`, in the order declared
    /// (without `.key` and `.priority`, which need none).
    /// - Complexity: O(d) dictionary look-ups for a path of d keys.
    public func indexes(at path: Path) -> [Index] {
        var level = root
        for key in path.keys {
            if let named = level.named[key] {
                level = named
            } else if let wildcard = level.wildcard {
                level = wildcard
            } else {
                return []
            }
        }
        return level.indexes
    }

    /// Whether a query at `path` ordered by `index` is covered by the rules: key and priority
    /// order always are; value and child order when declared with `.indexOn`.
    /// - Complexity: as ``indexes(at:)``.
    public func isIndexed(_ index: Index, at path: Path) -> Bool {
        switch index {
        case .key, .priority: true
        case .value, .child: indexes(at: path).contains(index)
        }
    }

    // MARK: Reading the document

    /// Reads the rules of one location, at `place` in the document.
    private static func level(_ json: JSONValue, at place: [String], wildcards: inout [String]) throws(DatabaseError) -> Level {
        guard case .object(let members) = json else {
            throw invalid(place, "the rules of a location must be an object, not \(describe(json))")
        }
        var level = Level()
        for (name, value) in members {
            let here = place + [name]
            if name == ".indexOn" {
                level.indexes = try indexes(value, at: here)
            } else if name.hasPrefix(".") {
                continue
            } else if name.hasPrefix("$") {
                let variable = String(name.dropFirst())
                if let problem = ChildKey.problem(with: variable) {
                    throw invalid(here, "\"\(name)\" is not a valid wildcard: \(problem)")
                }
                if let other = level.wildcardName, other != variable {
                    throw invalid(place, "two wildcards, $\(other) and \(name); a location has at most one")
                }
                if wildcards.contains(variable) {
                    throw invalid(here, "the wildcard \(name) is already used above")
                }
                wildcards.append(variable)
                let child = try Self.level(value, at: here, wildcards: &wildcards)
                wildcards.removeLast()
                level.wildcardName = variable
                level.wildcardLevel = [child]
            } else {
                if let problem = ChildKey.problem(with: name) {
                    throw invalid(here, "\"\(name)\" is not a valid key: \(problem)")
                }
                level.named[ChildKey(unchecked: name)] = try Self.level(value, at: here, wildcards: &wildcards)
            }
        }
        return level
    }

    /// Reads the value of an `.indexOn`.
    private static func indexes(_ json: JSONValue, at place: [String]) throws(DatabaseError) -> [Index] {
        let names: [(name: String, place: [String])]
        switch json {
        case .string(let name):
            names = [(name, place)]
        case .array(let elements):
            var collected: [(name: String, place: [String])] = []
            for (offset, element) in elements.enumerated() {
                var elementPlace = place
                elementPlace[elementPlace.count - 1] += "[\(offset)]"
                guard case .string(let name) = element else {
                    throw invalid(elementPlace, ".indexOn takes a string or an array of strings, not an array holding \(describe(element))")
                }
                collected.append((name, elementPlace))
            }
            names = collected
        default:
            throw invalid(place, ".indexOn takes a string or an array of strings, not \(describe(json))")
        }
        var indexes: [Index] = []
        for (name, place) in names {
            let index: Index
            switch name {
            case ".value": index = .value
            case ".key", ".priority": continue
            default:
                let path: Path
                do throws(DatabaseError) {
                    path = try Path(validating: name)
                } catch {
                    throw invalid(place, "\"\(name)\" is not .value, .key, .priority or a child path: \(error.message)")
                }
                if path.isEmpty {
                    throw invalid(place, "an index needs a child path, .value, .key or .priority, not \"\(name)\"")
                }
                index = .child(path)
            }
            if !indexes.contains(index) { indexes.append(index) }
        }
        return indexes
    }

    private static func invalid(_ place: [String], _ reason: String) -> DatabaseError {
        let location = place.isEmpty ? "" : " at /" + place.joined(separator: "/")
        return .other(code: ErrorCode.invalidRules, message: "invalid rules\(location): \(reason)")
    }

    private static func describe(_ json: JSONValue) -> String { json.kindDescription }

    /// The text with `//` and `/* */` comments outside strings blanked out (newlines kept, so
    /// that JSON errors keep their line numbers). An unterminated `/*` is left for the parser to
    /// report.
    static func strippingComments(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out = bytes
        var index = 0
        var inString = false
        let slash = UInt8(ascii: "/"), star = UInt8(ascii: "*"), quote = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\"), newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                if byte == backslash {
                    index += 2
                    continue
                }
                if byte == quote { inString = false }
                index += 1
                continue
            }
            if byte == quote {
                inString = true
                index += 1
                continue
            }
            guard byte == slash, index + 1 < bytes.count else {
                index += 1
                continue
            }
            if bytes[index + 1] == slash {
                while index < bytes.count, bytes[index] != newline {
                    out[index] = space
                    index += 1
                }
            } else if bytes[index + 1] == star {
                var end = index + 2
                while end + 1 < bytes.count, !(bytes[end] == star && bytes[end + 1] == slash) { end += 1 }
                guard end + 1 < bytes.count else { break }
                for position in index...(end + 1) where bytes[position] != newline { out[position] = space }
                index = end + 2
            } else {
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import EmberCore

/// The keys the wildcards on the way to a location matched, by name with its `$`: a handful at
/// most, kept in order (the first apart, the others in a small array): looked up faster than a dictionary is hashed.
public struct RuleCaptures: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    private struct Capture: Sendable, Hashable {
        let name: String
        let key: String

        /// Keys are equal when their bytes are (no Unicode normalisation), as ``ChildKey``s are.
        static func == (lhs: Capture, rhs: Capture) -> Bool {
            StringOrder.bytesEqual(lhs.name, rhs.name) && StringOrder.bytesEqual(lhs.key, rhs.key)
        }
    }

    /// The first capture, kept apart from the others so that the common case (one wildcard
    /// on the way) allocates nothing.
    private var first: Capture?
    private var rest: [Capture] = []

    public init() {}

    public init(_ dictionary: [String: String]) {
        for (name, key) in dictionary.sorted(by: { $0.key < $1.key }) { self[name] = key }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, key) in elements { self[name] = key }
    }

    /// Every capture, in the order bound.
    private var all: [Capture] { (first.map { [$0] } ?? []) + rest }

    /// The key the wildcard `name` matched.
    /// - Complexity: O(captures).
    public subscript(name: String) -> String? {
        get {
            if let first, StringOrder.bytesEqual(first.name, name) { return first.key }
            return rest.first { StringOrder.bytesEqual($0.name, name) }?.key
        }
        set {
            var captures = all
            captures.removeAll { StringOrder.bytesEqual($0.name, name) }
            if let newValue { captures.append(Capture(name: name, key: newValue)) }
            first = captures.first
            rest = Array(captures.dropFirst())
        }
    }

    /// Adds the key the wildcard `name` matched, `name` not being bound yet (a rules document
    /// never reuses a wildcard below itself).
    /// - Complexity: O(1) amortized.
    mutating func bind(_ name: String, to key: String) {
        if first == nil { first = Capture(name: name, key: key) } else { rest.append(Capture(name: name, key: key)) }
    }

    /// Whether no wildcard matched.
    public var isEmpty: Bool { first == nil }

    /// Each wildcard's name and key, sorted by name.
    public var sorted: [(name: String, key: String)] { all.sorted { $0.name < $1.name }.map { ($0.name, $0.key) } }
}

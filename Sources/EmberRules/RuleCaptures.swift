/// The keys the wildcards on the way to a location matched, by name with its `$`: a handful at
/// most, kept in order in a small array (looked up faster than a dictionary is hashed).
public struct RuleCaptures: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    private struct Capture: Sendable, Hashable {
        let name: String
        let key: String
    }

    private var captures: [Capture] = []

    public init() {}

    public init(_ dictionary: [String: String]) {
        for (name, key) in dictionary.sorted(by: { $0.key < $1.key }) { self[name] = key }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, key) in elements { self[name] = key }
    }

    /// The key the wildcard `name` matched.
    /// - Complexity: O(captures).
    public subscript(name: String) -> String? {
        get { captures.first { $0.name == name }?.key }
        set {
            captures.removeAll { $0.name == name }
            if let newValue { captures.append(Capture(name: name, key: newValue)) }
        }
    }

    /// Whether no wildcard matched.
    public var isEmpty: Bool { captures.isEmpty }

    /// Each wildcard's name and key, sorted by name.
    public var sorted: [(name: String, key: String)] { captures.sorted { $0.name < $1.name }.map { ($0.name, $0.key) } }
}

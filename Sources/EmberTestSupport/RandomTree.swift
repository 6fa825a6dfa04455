import EmberCore

/// Generates random JSON trees for property tests.
public struct RandomTree {
    /// Keys drawn from a pool that mixes integer keys, padded integers, plain strings and
    /// non-ASCII keys, so that key order is exercised.
    public static let keyPool: [String] = [
        "0", "1", "2", "3", "7", "07", "10", "-1", "-5", "2147483647", "2147483648", "-2147483648",
        "a", "b", "B", "aa", "ab", "z", "_", "-", "key with space", "é", "e\u{301}", "日本", "\u{FFFD}",
        "\u{1F600}", "\u{E000}", "~", "Z9",
    ]

    /// A random leaf value.
    public static func leaf(_ random: inout SeededRandom) -> LeafValue {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return .bool(Bool.random(using: &random))
        case 1: return .int(Int64.random(in: -1_000_000...1_000_000, using: &random))
        case 2: return .int(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 3: return LeafValue(normalizing: Double.random(in: -1e6...1e6, using: &random))!
        case 4: return .string(randomString(&random))
        default: return .string("")
        }
    }

    /// A random priority, or none.
    public static func priority(_ random: inout SeededRandom) -> Priority? {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .number(Double(Int.random(in: -5...5, using: &random)))
        case 1: return .string(["a", "b", "x"][Int.random(in: 0..<3, using: &random)])
        default: return nil
        }
    }

    /// A random string with escapes, control characters and non-BMP characters.
    public static func randomString(_ random: inout SeededRandom) -> String {
        let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "日", "\u{1F600}", "\u{2028}", "x"]
        let length = Int.random(in: 0..<8, using: &random)
        return (0..<length).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined()
    }

    /// A random tree of at most `depth` levels.
    public static func node(_ random: inout SeededRandom, depth: Int, priorities: Bool = true) -> Node {
        if depth == 0 || Int.random(in: 0..<3, using: &random) == 0 {
            return Node(leaf(&random), priority: priorities ? priority(&random) : nil)
        }
        var node = Node.empty
        for _ in 0..<Int.random(in: 0..<6, using: &random) {
            let key = ChildKey(unchecked: keyPool[Int.random(in: 0..<keyPool.count, using: &random)])
            node.setChild(key, Self.node(&random, depth: depth - 1, priorities: priorities))
        }
        if Bool.random(using: &random) {
            // An array-like object, sometimes with holes.
            for index in 0..<Int.random(in: 0..<4, using: &random) where Bool.random(using: &random) {
                node.setChild(ChildKey(Int32(index)), Node(leaf(&random)))
            }
        }
        return priorities ? node.withPriority(priority(&random)) : node
    }
}

/// "Did you mean …?": the nearest of several words to one mistyped.
public enum Suggestion {
    /// The candidate nearest to `word` by edit distance (ignoring case), when it is near enough
    /// to be a typo: at most a third of the word's length apart, and at least one.
    /// - Complexity: O(c · n · m) for c candidates of length m and a word of length n.
    public static func closest(to word: String, in candidates: [String]) -> String? {
        func distance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for (i, x) in a.enumerated() {
                var current = [i + 1]
                for (j, y) in b.enumerated() {
                    current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
                }
                previous = current
            }
            return previous[b.count]
        }
        let word = Array(word.lowercased())
        let scored = candidates.map { ($0, distance(word, Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, word.count / 3) else { return nil }
        return best.0
    }
}

/// What the completer offers for the word before the cursor.
public struct LineCompletion: Sendable, Hashable {
    /// The word being completed, as typed (it is replaced by the completion).
    public var partial: String
    /// The full words that could replace it, sorted.
    public var candidates: [String]
    /// Whether a unique candidate is followed by a space (not after a path ending in `/`).
    public var appendsSpace: Bool

    /// Creates a completion.
    public init(partial: String, candidates: [String], appendsSpace: Bool = true) {
        self.partial = partial
        self.candidates = candidates
        self.appendsSpace = appendsSpace
    }

    /// The longest prefix all candidates share.
    public var commonPrefix: String {
        guard var prefix = candidates.first else { return "" }
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(prefix) { prefix.removeLast() }
        }
        return prefix
    }
}

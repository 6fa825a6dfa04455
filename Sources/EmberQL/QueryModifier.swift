/// A query modifier of `get`, `ls` and `watch`, in its canonical spelling.
enum QueryModifier: String, CaseIterable, Sendable {
    case orderBy
    case limitToFirst
    case limitToLast
    case startAt
    case startAfter
    case endAt
    case endBefore
    case equalTo

    /// The modifier a word names, in any case (`orderby`, `LIMITTOFIRST`).
    init?(word: String) {
        guard let modifier = Self.allCases.first(where: { $0.rawValue.lowercased() == word.lowercased() }) else { return nil }
        self = modifier
    }

    /// The lowercased names, for telling a keyword from a key.
    static let lowercasedNames: Set<String> = Set(allCases.map { $0.rawValue.lowercased() })

    /// The names, as listed in messages and completions.
    static let names: [String] = allCases.map(\.rawValue)
}

/// A place in a rules file: line and column, from 1.
struct RulesPosition: Sendable, Hashable, CustomStringConvertible {
    let line: Int
    let column: Int

    /// `characters` further along the same line.
    func advanced(by characters: Int) -> RulesPosition { RulesPosition(line: line, column: column + characters) }

    var description: String { "\(line):\(column)" }
}

/// A place in the shell's input, for error messages with a caret under the bad word.
///
/// Lines and columns count from 1; columns count characters (grapheme clusters), which is what a
/// caret printed under the input lines up with. `offset` counts characters from the start of the
/// input.
public struct SourcePosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1, in characters.
    public var column: Int
    /// The characters before this position in the whole input.
    public var offset: Int

    /// The start of the input.
    public static let start = SourcePosition(line: 1, column: 1, offset: 0)

    /// Creates a position.
    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// The position after `character`: a newline starts the next line.
    public func advanced(past character: Character) -> SourcePosition {
        character.isNewline
            ? SourcePosition(line: line + 1, column: 1, offset: offset + 1)
            : SourcePosition(line: line, column: column + 1, offset: offset + 1)
    }

    /// Input order.
    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool { lhs.offset < rhs.offset }

    /// `line:column`, as in messages.
    public var description: String { "\(line):\(column)" }
}

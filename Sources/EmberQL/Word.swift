/// Some text of the input and where it starts: a name, a file, a chunk of Lua.
public struct Word: Sendable, Hashable {
    /// The text, unquoted when it was quoted.
    public var text: String
    /// Where it starts in the input.
    public var position: SourcePosition

    /// Creates a word.
    public init(_ text: String, at position: SourcePosition) {
        self.text = text
        self.position = position
    }
}

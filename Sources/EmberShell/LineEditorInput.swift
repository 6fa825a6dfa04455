/// What one read of the line editor produced.
public enum LineEditorInput: Sendable, Hashable {
    /// A line, without its newline.
    case line(String)
    /// Ctrl-C: the line being typed was abandoned.
    case interrupted
    /// The end of the input (Ctrl-D on an empty line, or a closed pipe).
    case endOfInput
}

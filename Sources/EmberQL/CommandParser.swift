/// Compiles a line (or a multi-line entry) of the query language into a ``Command``.
///
/// It executes nothing and knows nothing of the database's state: paths stay as written, values
/// are parsed and checked for syntax only (keys and depth are checked when a value reaches the
/// database), query modifiers are checked as ``EmberCore/QueryParams`` checks them.
public enum CommandParser {
    /// The command written in `source`, or `nil` for a blank line or a comment.
    /// - Throws: ``EmberQLError`` pointing at the offending word.
    public static func parse(_ source: String) throws(EmberQLError) -> Command? {
        fatalError("not built yet")
    }
}

extension CommandParser {
    /// Whether `source` is a finished entry: `false` when a `{`, `[` or `(` is still open or a
    /// quoted string is unterminated (outside comments), so the REPL reads another line.
    public static func isComplete(_ source: String) -> Bool {
        fatalError("not built yet")
    }

    /// What could be typed at the end of `prefix` (the line up to the cursor), for tab
    /// completion.
    public static func completionContext(for prefix: String) -> CompletionContext {
        fatalError("not built yet")
    }
}

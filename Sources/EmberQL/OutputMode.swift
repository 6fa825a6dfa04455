/// How results print: `output pretty|json|table`.
public enum OutputMode: String, Sendable, Hashable, CaseIterable {
    /// Coloured (on a terminal), indented JSON and friendly messages.
    case pretty
    /// One compact JSON document per result (what `--json` selects).
    case json
    /// Children as rows of a table where a result has children; otherwise as `pretty`.
    case table
}

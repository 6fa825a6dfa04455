import EmberCore
import EmberLua
import EmberQL

/// How the shell prints an error: `error: ...` with the input line and a caret under the word
/// that caused it, or one JSON document (`{"error": {code, message, path, line, column}}`).
extension ShellError {
    /// The error as printed, without a final newline.
    /// - Parameters:
    ///   - source: the entry that failed, for the caret; `nil` when no input caused it.
    ///   - json: machine output.
    ///   - style: colours for pretty output.
    ///   - origin: the file and line the entry was read from: the error names `FILE:LINE`
    ///     (in JSON, `file`, and `line` counts the file's lines).
    public func rendered(source: String?, json: Bool, style: TextStyle, origin: InputOrigin? = nil) -> String {
        // The line of the offending word: in the entry, or in the file the entry came from.
        let line = (origin?.line ?? 1) + (position?.line ?? 1) - 1
        if json {
            var fields: [(key: String, value: JSONValue)] = [("code", .string(code)), ("message", .string(message))]
            if let path { fields.append(("path", .string(path.description))) }
            if let origin { fields.append(("file", .string(origin.file))) }
            if position != nil || origin != nil { fields.append(("line", .int(Int64(line)))) }
            if let position { fields.append(("column", .int(Int64(position.column)))) }
            return JSONValue.object([("error", .object(fields))]).serialized()
        }
        var text: String
        switch self {
        case .syntax(let syntax):
            text = source.map { syntax.rendered(source: $0) } ?? "error: \(syntax.message)"
        case .database, .command:
            var message = message
            if let path, !message.contains(path.description) { message += " at \(path)" }
            if let position, let source {
                text = EmberQLError(message, at: position, length: Self.wordLength(at: position, in: source)).rendered(source: source)
            } else {
                text = "error: " + message
            }
        case .lua(let lua):
            text = "error: " + lua.message
            if let traceback = lua.traceback, !traceback.isEmpty { text += "\n" + traceback }
        case .interrupted(let message):
            text = "interrupted: " + message
        }
        if style.colored, text.hasPrefix("error:") { text = style.error("error:") + text.dropFirst(6) }
        if let origin { text = "\(origin.file):\(line): " + text }
        return text
    }

    /// How many characters the word starting at `position` in `source` has (up to whitespace).
    static func wordLength(at position: SourcePosition, in source: String) -> Int {
        source.dropFirst(position.offset).prefix { !$0.isWhitespace }.count
    }
}

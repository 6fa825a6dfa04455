import EmberCore

/// A database path as written: absolute (`/users/alice`), relative to the shell's location
/// (`alice`, `./alice`, `../bob`, `..`), or the location itself (written as nothing, or `.`).
public struct PathExpression: Sendable, Hashable {
    /// The text as written; empty when the command omitted the path.
    public var text: String
    /// Where it starts in the input (where the path would go, when omitted).
    public var position: SourcePosition

    /// Creates a path expression.
    public init(_ text: String, at position: SourcePosition) {
        self.text = text
        self.position = position
    }

    /// The path this names when the shell is at `location`: `.` segments are dropped and `..`
    /// goes up (not above the root). A segment that starts with `.` but is not `.` or `..`
    /// (`.info`) is a key; `.info` is accepted at the root only, where the client's metadata lives.
    /// - Throws: ``EmberQLError`` at this expression's position for an invalid key or a path
    ///   too deep, with the database's message.
    public func resolved(against location: Path) throws(EmberQLError) -> Path {
        var keys = text.hasPrefix("/") ? [] : location.keys
        for segment in text.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": if !keys.isEmpty { keys.removeLast() }
            case ".info" where keys.isEmpty:
                keys.append(.info)
            default:
                let key: ChildKey
                do {
                    key = try ChildKey(validating: String(segment))
                } catch {
                    throw EmberQLError(error.message, at: position, code: ErrorCode.invalidPath)
                }
                keys.append(key)
            }
        }
        let path = Path(keys: keys)
        do {
            try path.checkDepth()
        } catch {
            throw EmberQLError(error.message, at: position, code: ErrorCode.invalidPath)
        }
        return path
    }
}

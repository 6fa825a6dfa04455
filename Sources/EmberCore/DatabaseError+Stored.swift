extension DatabaseError {
    /// An error read back from where its code, whole ``message`` and path were stored (the
    /// server's record of refused writes): the same code, path and message. The stored message
    /// already ends with " at PATH", which `.other` would add a second time; it is taken off.
    public static func restored(code: String, message: String, at path: Path?) -> DatabaseError {
        let location = path.map { " at \($0)" } ?? ""
        let reason = !location.isEmpty && message.hasSuffix(location) ? String(message.dropLast(location.count)) : message
        return .other(code: code, message: reason, at: path)
    }
}

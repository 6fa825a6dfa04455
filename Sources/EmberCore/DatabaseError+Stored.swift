extension DatabaseError {
    /// An error read back from where its code, whole ``message`` and path were stored (the
    /// server's record of refused writes): the same code, message and path. The message is kept
    /// as it was written, the location already in it wherever its kind put it ("invalid value at
    /// /a: …", "permission denied at /a"); `.other` would add it again at the end.
    public static func restored(code: String, message: String, at path: Path?) -> DatabaseError {
        DatabaseError(.stored(code: code, message: message), path: path)
    }
}

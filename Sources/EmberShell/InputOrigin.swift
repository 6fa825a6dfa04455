/// Where an entry came from when it was read from a file: the file as named and the line the
/// entry starts on (1-based), so that an error can say `FILE:LINE`, as sqlite3 and psql do.
public struct InputOrigin: Sendable, Hashable {
    /// The file, as the user named it.
    public let file: String
    /// The line of the file where the entry starts.
    public let line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }
}

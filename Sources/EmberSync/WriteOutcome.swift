/// How the server answered a user write.
public enum WriteOutcome: Sendable, Hashable {
    /// The server accepted the write: it is dropped from the pending writes, and its data
    /// remains through the server's own update.
    case confirmed
    /// The server refused the write: it is dropped and listeners see the data without it.
    case reverted
}

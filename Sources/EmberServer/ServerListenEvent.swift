import EmberCore
import EmberWire

/// What a listen of a ``ServerClient`` hears, in the order the server sends it.
public enum ServerListenEvent: Sendable {
    /// The server answered the listen: `ok` after its first data (none when the location is
    /// empty), or why it was refused.
    case answered(AckStatus)
    /// The data at `path` (the listen's location or below it) is now this.
    case data(Path, Node)
    /// These paths below `path` changed.
    case merge(Path, [WireChange])
    /// The server cancelled the listen (the rules no longer allow it).
    case revoked(DatabaseError)
    /// The client's sign-in ended (its token expired).
    case signedOut(DatabaseError)
}

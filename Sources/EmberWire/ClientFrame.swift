import EmberCore

/// What one message of the realtime protocol v5 from a client says, decoded by
/// ``RealtimeCodec/decodeClientFrame(_:)``.
public enum ClientFrame: Sendable {
    /// A request the server handles (listen, put, merge, get, onDisconnect, auth, ...).
    case request(ClientMessage)
    /// A request answered `ok` with nothing else to do: usage statistics (`s`), App Check
    /// (`appcheck`, `unappeck`).
    case acknowledgeOnly(requestID: Int)
    /// A control ping (`{"t":"c","d":{"t":"p"}}`): answer with a pong.
    case ping
    /// Nothing to do: the keep-alive `"0"`, another control message, or an empty frame.
    case ignored
    /// A request the server cannot take (unknown action, bad path, bad value): answer
    /// `requestID` with the error, or, without a number, close the connection.
    case refused(requestID: Int?, error: DatabaseError)
}

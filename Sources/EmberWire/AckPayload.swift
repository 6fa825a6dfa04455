import EmberCore

/// What an `ok` answer carries besides its status: the realtime protocol's `d` of a
/// `{"s":"ok","d":…}` answer, which depends on the request answered.
public enum AckPayload: Sendable, Hashable {
    /// Nothing: the answer to a write, an unlisten, an onDisconnect request (`""` on the wire).
    case none
    /// A listen is in place: `{}` on the wire (the Android SDK reads the `d` of a listen's
    /// answer as an object).
    case listening
    /// A sign-in was taken: the user's `auth` variable (`nil`: signed in as nobody, the
    /// administrator's `gauth` without an override) and when its token expires, in seconds
    /// since 1970 (`nil`: never): `{"auth":…,"expires":…}` on the wire.
    case signedIn(auth: JSONValue?, expires: Int64?)
}

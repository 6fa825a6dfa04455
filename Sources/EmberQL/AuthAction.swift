/// What `auth` (or `client NAME auth`) does to a client's sign-in.
public enum AuthAction: Sendable, Equatable {
    /// `auth {CLAIMS} [expires MS]`: sign in as the user the claims describe, with a token that
    /// holds MS milliseconds (an hour when not given).
    case signIn(ValueExpression, expires: Int64?)
    /// `auth none`: sign out.
    case signOut
}

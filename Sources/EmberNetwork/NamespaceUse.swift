/// What a request does with a namespace: it decides whether a namespace that does not exist is
/// created for it (``DatabaseRegistry/database(named:for:)``). A namespace is a directory that
/// outlives the server (with `--db`) and one of at most `maxNamespaces`, so where rules are in
/// force only the administrator creates one; a request that may not is answered by an empty
/// database that keeps nothing.
public enum NamespaceUse: Sendable, Equatable {
    /// A one-off read (REST `GET`, the rules' `GET`): never creates.
    case read
    /// A WebSocket connection or an event stream: creates only where no rules are put in force
    /// (the emulator's way: anyone may write anything there, and the connection must see
    /// what is written later).
    case connection
    /// A write over REST (data, or the rules): creates when the administrator makes it, or
    /// where no rules are put in force.
    case write(byAdministrator: Bool)
    /// The server itself, at start (each `--ns`): creates.
    case start

    /// Whether it creates a namespace that does not exist.
    /// - Parameter openRules: no rules are put in force (a new namespace would be open).
    func creates(openRules: Bool) -> Bool {
        switch self {
        case .read: false
        case .connection: openRules
        case .write(let byAdministrator): byAdministrator || openRules
        case .start: true
        }
    }
}

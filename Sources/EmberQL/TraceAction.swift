/// What a `trace` command asks: to show the protocol messages of some clients, to stop, or what
/// is traced now.
public enum TraceAction: Sendable, Hashable {
    /// `trace` alone: what is traced.
    case show
    /// `trace on [CLIENT|all]`.
    case on(Scope)
    /// `trace off`.
    case off

    /// Whose messages `trace on` shows.
    public enum Scope: Sendable, Hashable {
        /// The current client's (`trace on`).
        case currentClient
        /// One client's, by name.
        case client(Word)
        /// Every client's (`trace on all`).
        case all
    }
}

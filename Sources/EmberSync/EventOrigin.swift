/// Where an event comes from: what tells a learner an optimistic write from the server's
/// answer, and a refused write's rollback from a change someone else made.
///
/// Firebase raises the same events without saying why; Ember labels each one from the operation
/// that raised it (`watch` prints the label, `--json` events carry it as `origin`).
public enum EventOrigin: String, Sendable, Hashable, CaseIterable {
    /// A write made on this client, shown before the server answers it (optimistic).
    case local
    /// Data the server sent, or a write it confirmed that changed what shows.
    case server
    /// A write the server refused, taken back: what shows is the data without it.
    case rollback
    /// Data the client's persisted cache kept (after a restart), before the server's.
    case cache
}

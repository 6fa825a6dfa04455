import EmberCore

/// Where the sync engine says which server listens it needs; the engine never talks to a
/// connection itself.
///
/// A ``SyncTree`` calls `startListening` when a query needs data it has no ancestor listen
/// for, and `stopListening` when the last listener that needed it goes, or when a new listen
/// above covers it. The owner (the client's repo) turns these into wire messages, and reports
/// the server's answer back through ``SyncTree/applyListenComplete(at:)`` and the tagged
/// variants.
public protocol ListenProvider {
    /// Start a server listen for `query` (the form to send: see ``QuerySpec/forListening``),
    /// tagged when the query is filtered.
    mutating func startListening(_ query: QuerySpec, tag: QueryTag?)
    /// Stop the server listen started for `query` with `tag`.
    mutating func stopListening(_ query: QuerySpec, tag: QueryTag?)
}

import EmberClient
import EmberCore
import EmberRules
import EmberServer
import EmberStorage
import EmberWire

/// What a shell or a script may do to an instance's embedded server, and all it may see of it:
/// its rules and their coverage, its clock's skew, the memory its tree takes, what it holds for
/// a client's connection, and imports and exports streamed through its store. The one way the
/// shell and Lua reach the server (``Ember/administration``); a server in another process has
/// none (its rules go through ``RemoteServer/rules(_:on:completion:)``).
///
/// A view of the instance, confined to its engine's thread like the instance.
public struct ServerAdministration {
    private let server: Server
    private unowned let ember: Ember

    init(server: Server, ember: Ember) {
        self.server = server
        self.ember = ember
    }

    // MARK: Rules

    /// The security rules in force.
    public var rules: Ruleset { server.rules }

    /// How often each rule was evaluated, and how, since the rules were put in force.
    public var coverage: RuleCoverage { server.coverage }

    /// Puts `rules` in force (saved with the data when there is a database directory); the
    /// listens they no longer allow are revoked.
    /// - Returns: how many listens were revoked.
    /// - Throws: ``StoreError`` when they cannot be saved; the rules in force stay as they were.
    @discardableResult
    public func setRules(_ rules: Ruleset) throws(StoreError) -> Int { try server.setRules(rules) }

    /// Whether rules saved now stay with the data: `false` when the database is read-only (they
    /// hold until the session ends).
    public var savesRules: Bool { server.store?.isReadOnly != true }

    /// The last rules check made for an operation of the client `name` on its current
    /// connection, if any (what `explain` explains).
    public func lastRuleCheck(of name: ClientName) -> RuleCheck? { ember.lastRuleCheck(of: name) }

    // MARK: Clock and memory

    /// Milliseconds the server's clock runs ahead of the clients' (they learn it when they next
    /// connect).
    public var clockSkew: Int64 {
        get { server.clockSkew }
        nonmutating set { server.clockSkew = newValue }
    }

    /// What the server's tree holds in memory now.
    public var cacheUse: ServerCacheUse { server.cacheUse }

    /// How many bytes of stored rows the tree keeps in memory before it evicts.
    public var cacheSize: Int { server.cacheSize }

    // MARK: What it holds

    /// What the server holds for the client `name`'s connection (`nil`: not connected).
    public func inspection(of name: ClientName) -> ServerConnectionInspection? { ember.serverInspection(of: name) }

    /// What the server's data answers `query`: what `inspect` compares a client's views with.
    public func data(for query: QuerySpec) -> Node { server.data(for: query) }

    // MARK: Streaming through the store

    /// Whether an export of `path` for the client `name` may stream from the store's rows: the
    /// server keeps a store, the client is connected, and no rule keeps it from reading.
    public func exportsStreaming(at path: Path, for name: ClientName) -> Bool {
        guard let connection = ember.connectionID(of: name) else { return false }
        return server.exportsStreaming(at: path, by: connection)
    }

    /// Writes the data at `path` in the export format to `sink` from the store's rows
    /// (``Server/exportStreaming(at:to:)``).
    /// - Returns: how many bytes were written.
    public func exportStreaming(at path: Path, to sink: (String) throws -> Void) throws -> Int {
        try server.exportStreaming(at: path, to: sink)
    }

    /// Whether an import at `path` for the client `name` may stream into the store: the server
    /// keeps a writable store, the client is connected, and the rules grant the write whatever
    /// is written (``Server/importsStreaming(at:by:)``).
    public func importsStreaming(at path: Path, for name: ClientName) -> Bool {
        guard let connection = ember.connectionID(of: name) else { return false }
        return server.importsStreaming(at: path, by: connection)
    }

    /// Replaces the data at `path` with what `produce` delivers, written into the store as it
    /// comes, all or nothing (``Server/importStreaming(at:producing:checkpoint:)``).
    /// - Returns: how many rows were written.
    public func importStreaming(
        at path: Path, producing produce: @escaping @Sendable (_ deliver: (ExportReader.Piece, _ offset: Int) throws -> Void) throws -> Void,
        checkpoint: (_ offset: Int) throws -> Void
    ) throws -> Int {
        try server.importStreaming(at: path, producing: produce, checkpoint: checkpoint)
    }
}

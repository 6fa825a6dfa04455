import EmberCore
import GRDB

/// A durable key-value store of JSON values by path, on SQLite through GRDB.
///
/// This is the first brick of the server's store and the client's cache: a `nodes` table
/// (`path` → JSON text of the value at that path), created by a migration so that later schema
/// changes are new migrations. A store is safe to share between threads (GRDB's
/// `DatabaseQueue` serializes access).
///
/// ```swift
/// let store = try Store(at: .file("/tmp/ember/server.sqlite"))
/// try store.write(json: #"{"name":"Alice"}"#, at: "/users/alice")
/// try store.read(at: "/users/alice")   // #"{"name":"Alice"}"#
/// ```
public final class Store: Sendable {
    /// The migrations, in order. Never edit a shipped one: add a new one.
    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-nodes") { db in
            try db.create(table: "nodes", options: [.withoutRowID]) { table in
                table.primaryKey("path", .text)
                table.column("value", .text).notNull()
            }
        }
        return migrator
    }()

    /// Where the data lives.
    public let location: StoreLocation

    private let queue: DatabaseQueue

    /// Opens (or creates) the store at `location` and brings its schema up to date.
    /// - Throws: ``StoreError`` when the file cannot be opened or is not an Ember store.
    public init(at location: StoreLocation) throws(StoreError) {
        self.location = location
        queue = try location.open("the store", migrator: Self.migrator)
    }

    /// The migrations applied to the store, oldest first.
    public func appliedMigrations() throws(StoreError) -> [String] {
        do {
            return try queue.read { db in try Self.migrator.appliedMigrations(db) }
        } catch {
            throw StoreError("cannot read the schema of the store at \(location)", error)
        }
    }

    /// Stores `json` as the value at `path`, replacing what was there.
    public func write(json: String, at path: Path) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(
                    sql: "INSERT INTO nodes (path, value) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET value = excluded.value",
                    arguments: [path.description, json])
            }
        } catch {
            throw StoreError("cannot write \(path) to the store at \(location)", error)
        }
    }

    /// The JSON stored at `path`, or `nil` when there is none.
    public func read(at path: Path) throws(StoreError) -> String? {
        do {
            return try queue.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM nodes WHERE path = ?", arguments: [path.description])
            }
        } catch {
            throw StoreError("cannot read \(path) from the store at \(location)", error)
        }
    }

    /// Removes the value stored at `path`, if any.
    public func remove(at path: Path) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(sql: "DELETE FROM nodes WHERE path = ?", arguments: [path.description])
            }
        } catch {
            throw StoreError("cannot remove \(path) from the store at \(location)", error)
        }
    }

    /// Closes the database now, instead of when the store is released. The store cannot be used
    /// afterwards.
    public func close() throws(StoreError) {
        do {
            try queue.close()
        } catch {
            throw StoreError("cannot close the store at \(location)", error)
        }
    }
}

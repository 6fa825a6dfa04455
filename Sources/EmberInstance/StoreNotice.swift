import EmberClient
import EmberCore
import EmberStorage

/// Something found while opening a database directory that its user must hear of: nothing is
/// thrown away silently.
public enum StoreNotice: Sendable, Hashable, CustomStringConvertible {
    /// A client's store could not be read (not a database, or damaged): it was moved aside to
    /// `setAside`, untouched, and the client started a new, empty store. Its queued writes and
    /// cache were not used.
    case unreadableClientStore(client: ClientName, file: String, setAside: String, reason: String)
    /// `server.sqlite` was an empty file (0 bytes): the database starts with no data.
    case emptyServerStore(file: String)
    /// Rows of the server's store that would not pass a write's checks were left out.
    case badRows(file: String, [BadRow])
    /// The database directory cannot be written: it was opened for reading, writes are
    /// refused, and clients keep nothing on disk.
    case readOnly(directory: String)
    /// The cache directory of a server in another process is held by another `ember`: this
    /// session's clients keep their caches and queues in memory.
    case cacheInUse(directory: String)

    /// Whether the notice means data the user had may be missing now: a command-line run
    /// fails (exit status 1) rather than go on as if nothing happened.
    public var isFailure: Bool {
        switch self {
        case .unreadableClientStore: true
        case .emptyServerStore, .badRows, .readOnly, .cacheInUse: false
        }
    }

    /// The stable code: `store_unreadable`, `store_empty`, `bad_rows`, `read_only`,
    /// `database_in_use`.
    public var code: String {
        switch self {
        case .unreadableClientStore: ErrorCode.storeUnreadable
        case .emptyServerStore: ErrorCode.storeEmpty
        case .badRows: ErrorCode.badRows
        case .readOnly: ErrorCode.readOnly
        case .cacheInUse: ErrorCode.databaseInUse
        }
    }

    /// A sentence for people: what was found, what was done, what to do.
    public var description: String {
        switch self {
        case .unreadableClientStore(let client, let file, let setAside, let reason):
            return "the store of client \(client) at \(file) cannot be read (\(reason)); it was moved to \(setAside), "
                + "untouched, and \(client) starts with an empty store: its queued writes and cache from before are not used"
        case .emptyServerStore(let file):
            return "the server's store at \(file) is an empty file (0 bytes): the database starts with no data"
        case .readOnly(let directory):
            return "the database at \(directory) is read-only (its directory cannot be written): reads work, "
                + "writes are refused, and clients keep no cache or queue on disk"
        case .cacheInUse(let directory):
            return "another ember holds the cache at \(directory): this session's clients keep their cache and "
                + "queued writes in memory (they are gone when it ends)"
        case .badRows(let file, let rows):
            let shown = rows.prefix(5).map(\.description).joined(separator: "; ")
            let more = rows.count > 5 ? "; and \(rows.count - 5) more" : ""
            return "the server's store at \(file) holds \(rows.count) value\(rows.count == 1 ? "" : "s") that cannot be loaded, "
                + "left out (the rest of the data is there): \(shown)\(more)"
        }
    }
}

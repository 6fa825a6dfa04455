import EmberCore
import EmberSync
import EmberWire

/// What a client holds, at one moment: its cache (each view), its pending writes with their
/// state, its listens on the server, its transactions in flight and its onDisconnect
/// operations. What `inspect` shows and `ember.inspect()` returns.
public struct ClientInspection: Sendable {
    /// The client.
    public let client: ClientName
    /// Its connection, as `status` says it.
    public let connection: String
    /// Each view of its cache, by location.
    public let views: [View]
    /// Its writes the server has not answered, oldest first.
    public let writes: [PendingWrite]
    /// The listens it holds on the server.
    public let listens: [Listen]
    /// Its transactions not yet completed.
    public let transactions: [Transaction]
    /// Its onDisconnect operations.
    public let onDisconnects: [OnDisconnect]

    /// One view: what listeners of one query see.
    public struct View: Sendable {
        /// The query.
        public let query: QuerySpec
        /// Whether the data is complete (the server sent it whole, or writes determine it).
        public let isComplete: Bool
        /// What the listeners see (pending writes included).
        public let data: Node
        /// What the server sent.
        public let serverData: Node
        /// Whether the server's data is complete.
        public let serverComplete: Bool
    }

    /// A write waiting for the server's answer.
    public struct PendingWrite: Sendable {
        /// Its number on this client (in order of writing).
        public let id: Int
        /// Where it writes.
        public let path: Path
        /// What it writes: `set` (a value) or `update` (children).
        public let change: Change
        /// Whether it went out.
        public let state: State

        /// What a write changes.
        public enum Change: Sendable {
            case set(Node)
            case update([WireChange])
        }

        /// Where a write is.
        public enum State: String, Sendable {
            /// Kept until the client is connected (offline).
            case queued
            /// Sent; the server has not answered yet.
            case sent
        }
    }

    /// A listen on the server.
    public struct Listen: Sendable {
        /// Its query (the default query for a listen that loads all data).
        public let query: QuerySpec
        /// The tag of a filtered query's listen.
        public let tag: Int?
    }

    /// A transaction in flight.
    public struct Transaction: Sendable {
        /// Its location.
        public let path: Path
        /// How many times its update function ran.
        public let attempts: Int
        /// How many times the server refused it as stale (`datastale`) and it ran again.
        public let retries: Int
        /// Where it is: `waiting` (for data, or to run again), `sent`, `in doubt` (sent, the
        /// connection lost before the answer).
        public let state: String
        /// The value of its last run.
        public let value: Node
    }

    /// An onDisconnect operation.
    public struct OnDisconnect: Sendable {
        /// Where it writes.
        public let path: Path
        /// What it does when the connection goes.
        public let operation: Operation
        /// Whether the server holds it (else it is kept for the next connection).
        public let isRegistered: Bool

        /// What an onDisconnect operation does.
        public enum Operation: Sendable {
            case set(Node)
            case update([WireChange])
            /// Forgets the operations at and below the path (kept until connected).
            case cancel
        }
    }
}

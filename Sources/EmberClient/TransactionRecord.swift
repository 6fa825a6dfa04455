import EmberCore
import EmberSync
import EmberWire

/// One running transaction of a client and where it stands.
///
/// The repo moves it through its states: `waiting` (run locally, to be sent when connected and
/// no earlier overlapping transaction is in flight), `sent` (a put guarded by the hash of the
/// value it ran on is in flight), then completed and removed. A `set` at an overlapping
/// location aborts a waiting transaction at once and a sent one when its answer comes.
struct TransactionRecord {
    /// How a transaction ended when it did not fail: committed or not, the data at its
    /// location, how many times its function ran.
    typealias Outcome = (committed: Bool, node: Node, attempts: Int)

    enum State: Sendable, Hashable {
        case waiting
        /// In flight as request `requestID`, carrying `put`.
        case sent(requestID: Int, put: SentPut, abortWhenAnswered: Bool)
        /// Sent, but the connection went before the answer: it may have landed. The same put
        /// goes again (same key, same guard), so the server answers it instead of applying it
        /// twice, whatever the client has learnt meanwhile.
        case inDoubt(put: SentPut, abortWhenAnswered: Bool)
    }

    /// The put that carries a batch of transactions.
    struct SentPut: Sendable, Hashable {
        let path: Path
        let data: Node
        let hash: String
        /// A key of this session's writer, numbered when the put is first sent.
        let key: WriteKey
    }

    /// Whether the transaction's put is in flight or in doubt (nothing overlapping may go).
    var isOutstanding: Bool {
        switch state {
        case .waiting: false
        case .sent, .inDoubt: true
        }
    }

    let id: TransactionID
    let path: Path
    let update: (Node) -> TransactionUpdate
    let visibility: WriteVisibility
    let completion: (Result<Outcome, DatabaseError>) -> Void
    /// The listener that keeps the location synced while the transaction runs.
    let keepSynced: RegistrationID
    var state: State = .waiting
    /// The pending write of the latest run.
    var writeID: WriteID
    /// The value the latest run returned, as written (server values unresolved).
    var output: Node = .empty
    /// The latest run's value with its server values resolved locally: what its completion
    /// reports when it commits (Firebase's `currentOutputSnapshotResolved`).
    var resolvedOutput: Node = .empty
    /// The hash of the value the latest run started from: the server's guard.
    var inputHash: String = ""
    /// The sync tree's generation once the latest run's value was applied: while the tree is
    /// still there, nothing but the transaction's own write changed, and its input is the same.
    var inputGeneration: UInt64?
    /// How many times the update function ran.
    var attempts = 0
    /// How many times the server answered `datastale`.
    var retries = 0

    /// Whether this transaction and `other` touch the same data.
    func overlaps(_ other: Path) -> Bool {
        path.contains(other) || other.contains(path)
    }
}

extension TransactionRecord.SentPut {
    func message(requestID: Int) -> ClientMessage {
        .put(requestID: requestID, path: path, data: data, hash: hash, writeKey: .keyed(key))
    }
}

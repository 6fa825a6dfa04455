import EmberCore
import EmberStorage
import EmberSync
import EmberWire

/// A user write on its way to the server: in the queue from the moment it is made until the
/// server answers it, and sent again, in order, on every new connection until then.
struct OutgoingWrite {
    /// What is written.
    enum Change {
        /// `set`: the value as the user wrote it (server values unresolved; the server resolves
        /// them).
        case put(Node)
        /// `update`: paths relative to the write's location.
        case merge([WireChange])
    }

    let id: WriteID
    /// The key the server recognizes it by when it is sent again: the session that made it and
    /// its number there (kept across restarts with the write, as its text).
    let key: SentWriteKey
    let path: Path
    let change: Change
    /// The row of the client's store that keeps it (`nil` without a store).
    var storeRow: Int64? = nil
    /// Whether it went to the server on the current connection (every queued write is sent
    /// again on the next).
    var isSent = false
    /// Called once with the server's answer (`nil`: accepted).
    let completion: (DatabaseError?) -> Void

    /// The message that sends it as request `requestID`.
    func message(requestID: Int) -> ClientMessage {
        switch change {
        case .put(let node): .put(requestID: requestID, path: path, data: node, hash: nil, writeKey: key)
        case .merge(let changes): .merge(requestID: requestID, path: path, changes: changes, writeKey: key)
        }
    }

    /// The write as a client's store keeps it.
    var persisted: PersistedWrite {
        switch change {
        case .put(let node): PersistedWrite(key: key.description, path: path, change: .put(node))
        case .merge(let changes): PersistedWrite(key: key.description, path: path, change: .merge(changes.map { .init($0.path, $0.node) }))
        }
    }
}

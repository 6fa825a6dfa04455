import EmberCore
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
    let path: Path
    let change: Change
    /// Called once with the server's answer (`nil`: accepted).
    let completion: (DatabaseError?) -> Void

    /// The message that sends it as request `requestID`, keyed by the client's session so the
    /// server recognizes it when it is sent again.
    func message(requestID: Int, session: String) -> ClientMessage {
        let key = "\(session):w\(id.rawValue)"
        return switch change {
        case .put(let node): .put(requestID: requestID, path: path, data: node, hash: nil, writeKey: key)
        case .merge(let changes): .merge(requestID: requestID, path: path, changes: changes, writeKey: key)
        }
    }
}

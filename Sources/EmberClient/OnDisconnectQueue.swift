import EmberCore
import EmberWire

/// A client's onDisconnect operations: those made while not connected (sent on the next
/// connection) and those the server accepted on this connection (which the client applies to
/// its own cache when the connection goes, as the server applies them to the data).
struct OnDisconnectQueue {
    private var queued: [OnDisconnectRequest] = []
    private var registered: [(path: Path, operation: OnDisconnectRequest.Operation)] = []

    /// The operations the server holds, in the order it accepted them, then those kept for the
    /// next connection.
    var listed: [(path: Path, operation: OnDisconnectRequest.Operation, registered: Bool)] {
        registered.map { ($0.path, $0.operation, true) } + queued.map { ($0.path, $0.operation, false) }
    }

    /// Keeps `request` for the next connection.
    /// - Complexity: O(1) amortized.
    mutating func queue(_ request: OnDisconnectRequest) {
        queued.append(request)
    }

    /// Hands over the requests to send on a new connection, oldest first.
    /// - Complexity: O(n).
    mutating func takeQueued() -> [OnDisconnectRequest] {
        defer { queued = [] }
        return queued
    }

    /// The server accepted `request`: a cancellation forgets what is at and below its path
    /// (what is above stays, as the server's `SparseSnapshotTree.forget` keeps it); anything
    /// else is recorded.
    /// - Complexity: O(n) for a cancellation, O(1) amortized otherwise.
    mutating func accepted(_ request: OnDisconnectRequest) {
        guard case .cancel = request.operation else {
            registered.append((request.path, request.operation))
            return
        }
        registered = registered.compactMap { registered in
            let changes: [WireChange]
            switch registered.operation {
            case .put(let node): changes = [WireChange(.root, node)]
            case .merge(let merged): changes = merged
            case .cancel: return registered
            }
            guard let remaining = WireChange.remaining(of: changes, at: registered.path, afterCancelling: request.path)
            else { return nil }
            return remaining == changes ? registered : (registered.path, .merge(remaining))
        }
    }

    /// The connection went: hands over the accepted operations, in the order accepted, to
    /// apply locally, and forgets them.
    /// - Complexity: O(n).
    mutating func takeRegistered() -> [(path: Path, operation: OnDisconnectRequest.Operation)] {
        defer { registered = [] }
        return registered
    }
}

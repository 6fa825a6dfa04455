import EmberCore
import EmberSync
import EmberWire

extension Repo {
    /// Asks the server to perform `operation` at `path` when this client's connection ends
    /// (or to forget the operations at and below `path`). Sent now when connected, otherwise on
    /// the next connection; `completion` gets the server's answer.
    /// - Throws: `invalid_*` for a bad path or value, before anything is sent.
    func onDisconnect(_ operation: OnDisconnectRequest.Operation, at path: Path, completion: @escaping (DatabaseError?) -> Void) throws(DatabaseError) {
        try Self.checkWritable(path)
        switch operation {
        case .put(let node): try node.validate(at: path)
        case .merge(let changes): try Self.checkMerge(changes.map { ($0.path, $0.node) }, at: path)
        case .cancel: break
        }
        let request = OnDisconnectRequest(path: path, operation: operation, completion: completion)
        if sendsWrites {
            send(request.message(requestID: requests.newID()), as: .onDisconnect(request))
        } else {
            onDisconnects.queue(request)
        }
    }

    /// The server answered an onDisconnect request.
    func onDisconnectAnswered(_ request: OnDisconnectRequest, status: AckStatus) {
        switch status {
        case .ok:
            onDisconnects.accepted(request)
            raise([]) { request.completion(nil) }
        case .failed(let error):
            raise([]) { request.completion(error) }
        }
    }

    /// Applies to the local cache what the server does with this connection's onDisconnect
    /// operations (server values resolved with the estimated server time), as the SDKs do.
    func runLocalOnDisconnect() -> [Event] {
        var events: [Event] = []
        for (path, operation) in onDisconnects.takeRegistered() {
            let existing = syncTree.completeEventCache(at: path) ?? .empty
            switch operation {
            case .put(let node):
                events += syncTree.applyServerOverwrite(
                    node.resolvingServerValues(existing: existing, serverTime: estimatedServerTime), at: path)
            case .merge(let changes):
                let resolved = changes.map {
                    ($0.path, $0.node.resolvingServerValues(existing: existing.child(at: $0.path), serverTime: estimatedServerTime))
                }
                events += syncTree.applyServerMerge(resolved, at: path)
            case .cancel:
                break
            }
        }
        return events
    }
}

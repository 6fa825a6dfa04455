import EmberCore
import EmberStorage
import EmberSync
import EmberWire

extension Repo {
    /// Replaces the value at `path`: local events at once, then the server's answer through
    /// `completion` (`nil`: accepted). A set aborts the transactions it overlaps.
    /// - Throws: `invalid_*` errors for a bad path or value, before anything changes.
    func set(_ node: Node, at path: Path, completion: @escaping (DatabaseError?) -> Void) throws(DatabaseError) {
        try Self.checkWritable(path)
        try node.validate(at: path)
        let resolved = resolvingServerValues(node, at: path)
        // What a server value resolves to must be storable too (an increment can overflow).
        if node.containsServerValues { try resolved.validate(at: path) }
        perform(transactions.abort(overlapping: path))
        let writeID = session.newWriteID()
        let events = syncTree.applyUserOverwrite(resolved, at: path, writeID: writeID)
        enqueue(OutgoingWrite(id: writeID, key: .keyed(session.newWriteKey()), path: path, change: .put(node), completion: completion))
        raise(events)
    }

    /// Sets several paths below `path` at once (all land or none): local events at once, the
    /// server's answer later.
    /// - Throws: `invalid_*` errors for a bad path or value, or for a path written twice (one
    ///   below the other), before anything changes.
    func update(_ changes: [(Path, Node)], at path: Path, completion: @escaping (DatabaseError?) -> Void) throws(DatabaseError) {
        try Self.checkWritable(path)
        try Self.checkMerge(changes, at: path)
        guard !changes.isEmpty else {
            raise([]) { completion(nil) }
            return
        }
        let resolved = changes.map { relative, node in (relative, resolvingServerValues(node, at: path.appending(relative))) }
        for ((_, node), (relative, value)) in zip(changes, resolved) where node.containsServerValues {
            try value.validate(at: path.appending(relative))
        }
        for (relative, _) in changes { perform(transactions.abort(overlapping: path.appending(relative))) }
        let writeID = session.newWriteID()
        let events = syncTree.applyUserMerge(resolved, at: path, writeID: writeID)
        let wire = changes.map { WireChange($0.0, $0.1) }
        enqueue(OutgoingWrite(id: writeID, key: .keyed(session.newWriteKey()), path: path, change: .merge(wire), completion: completion))
        raise(events)
    }

    /// `node` with its server values resolved locally: timestamps to the estimated server time,
    /// increments against the local value.
    /// - Complexity: O(1) for a node without server values.
    func resolvingServerValues(_ node: Node, at path: Path) -> Node {
        guard node.containsServerValues else { return node }
        let existing = syncTree.completeEventCache(at: path) ?? .empty
        return node.resolvingServerValues(existing: existing, serverTime: estimatedServerTime)
    }

    /// Adds a write to the queue (and the store's) and sends it if connected.
    private func enqueue(_ write: consuming OutgoingWrite) {
        write.storeRow = persistence.saveWrite(write.persisted)
        guard sendsWrites else {
            writes.append(write)
            return
        }
        // Marked sent and its message made before it joins the queue, which takes it: no copy
        // of the write is kept here, and the queue is not searched for it.
        let requestID = requests.newID()
        write.isSent = true
        let message = write.message(requestID: requestID)
        let id = write.id
        writes.append(write)
        send(message, as: .write(id))
    }

    /// Sends a queued write if connected (and writes are not held for a new token).
    func sendWrite(_ write: OutgoingWrite) {
        guard sendsWrites else { return }
        let requestID = requests.newID()
        writes.sent(write.id)
        send(write.message(requestID: requestID), as: .write(write.id))
    }

    /// The server answered a queued write: it leaves the queue; a refusal reverts it with
    /// events; then its completion runs.
    func writeAnswered(_ writeID: WriteID, status: AckStatus) {
        guard let write = writes.remove(writeID) else { return }
        if let row = write.storeRow { persistence.removeWrite(row: row) }
        switch status {
        case .ok:
            if persistence.store != nil, let record = syncTree.pendingWrite(writeID) {
                persistence.keepConfirmedWrite(record, now: environment.clock.now())
            }
            raise(syncTree.ackUserWrite(writeID, outcome: .confirmed), answering: write.completion, with: nil)
        case .failed(let error):
            // A refusal is final: the write leaves the stored queue before anyone hears of it,
            // so that no restart sends it again (deleting needs no new space, even on a full
            // disk). An acceptance needs no such care: the server answers a resend from its
            // record of answered writes.
            persistence.commitRemovals()
            raise(syncTree.ackUserWrite(writeID, outcome: .reverted), answering: write.completion, with: error.path == nil ? error.at(write.path) : error)
        }
    }

    // MARK: Validation

    static func checkWritable(_ path: Path) throws(DatabaseError) {
        if InfoTree.contains(path) {
            throw .invalidValue("\(path) is client-local and read-only", at: path)
        }
    }

    static func checkMerge(_ changes: [(Path, Node)], at path: Path) throws(DatabaseError) {
        try Node.validateUpdatePaths(changes.map(\.0), at: path)
        for (relative, node) in changes { try node.validate(at: path.appending(relative)) }
    }
}

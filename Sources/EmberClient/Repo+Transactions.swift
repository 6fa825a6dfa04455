import EmberCore
import EmberSync
import EmberWire

extension Repo {
    /// Starts a transaction at `path`: runs `update` on the current local value at once (an
    /// empty node when nothing is known yet), applies the result locally (hidden unless
    /// `applyLocally`), and sends it guarded by the hash of the value it ran on as soon as it
    /// can. `datastale` re-runs it on the newer value, at most ``TransactionQueue/maxRetries``
    /// times.
    /// - Throws: `invalid_*` for a bad path, before anything runs.
    func transaction(
        at path: Path, applyLocally: Bool, update: @escaping (Node) -> TransactionUpdate,
        completion: @escaping (Result<TransactionRecord.Outcome, DatabaseError>) -> Void
    ) throws(DatabaseError) {
        try Self.checkWritable(path)
        let id = transactions.newID()
        // Keep the location synced while the transaction runs, so a retry sees the server's value.
        let keepSynced = addListener(.default(at: path), types: []) { _ in }
        transactions.add(TransactionRecord(
            id: id, path: path, update: update, visibility: applyLocally ? .visible : .hidden, completion: completion,
            keepSynced: keepSynced, writeID: session.newWriteID()))
        var events: [Event] = []
        runTransaction(id, replacing: false, events: &events)
        raise(events)
        sendTransactions()
    }

    /// Runs the transaction's update function on the value it should start from now (the local
    /// value without its own write or those of later overlapping transactions), applies its
    /// result locally (replacing the previous run's write, when `replacing`), and tells the
    /// queue.
    private func runTransaction(_ id: TransactionID, replacing: Bool, events: inout [Event]) {
        guard let record = transactions.record(id) else { return }
        let input = transactionInput(for: id, at: record.path)
        let result: TransactionQueue.RunResult
        // The update function is the user's code: it runs with no owner's state borrowed, and
        // may itself write. A set over the location aborts the transaction (and reverts its
        // last write) meanwhile: then this run's value goes nowhere.
        let update = record.update(input)
        guard transactions.record(id) != nil else { return }
        switch update {
        case .abort:
            if replacing { events += syncTree.ackUserWrite(record.writeID, outcome: .reverted) }
            result = .aborted(input: input)
        case .commit(var node):
            // The node keeps its priority unless the function gave one (Repo.ts,
            // repoStartTransaction and repoRerunTransactionQueue: "Keep the old priority if
            // there wasn't a priority explicitly specified").
            if node.priority == nil { node = node.withPriority(input.priority) }
            do throws(DatabaseError) {
                try node.validate(at: record.path)
                let writeID = session.newWriteID()
                let resolved = node.resolvingServerValues(existing: input, serverTime: estimatedServerTime)
                // The new value first, then the old one goes: listeners see one change, as in
                // repoRerunTransactionQueue.
                events += syncTree.applyUserOverwrite(resolved, at: record.path, writeID: writeID, visibility: record.visibility)
                if replacing { events += syncTree.ackUserWrite(record.writeID, outcome: .reverted) }
                result = .committed(
                    output: node, resolved: resolved, inputHash: input.hashString, generation: syncTree.generation, writeID: writeID)
            } catch {
                if replacing { events += syncTree.ackUserWrite(record.writeID, outcome: .reverted) }
                result = .invalid(error)
            }
        }
        perform(transactions.ran(id, result), events: &events)
    }

    private func transactionInput(for id: TransactionID, at path: Path) -> Node {
        syncTree.completeEventCache(at: path, excluding: transactions.writesHidden(from: id)) ?? .empty
    }

    /// Sends the waiting transactions that no transaction in flight holds back, as the SDKs do:
    /// all those at and below the highest waiting location go together in one put of the
    /// location's new value, guarded by the hash of the value they ran on. When the value a
    /// transaction ran on changed meanwhile, it is re-run first, with every later one that
    /// overlaps it (``TransactionQueue/rerunOrder(_:)``), so that the put is not refused as
    /// stale.
    func sendTransactions() {
        guard sendsWrites else { return }
        for put in transactions.putsInDoubt() { resend(put) }
        var events: [Event] = []
        while let root = transactions.nextBatchRoot() {
            var batch = transactions.batch(at: root)
            if rerunChanged(batch, events: &events) { batch = transactions.batch(at: root) }
            guard !batch.isEmpty else { continue }
            let base = syncTree.completeEventCache(at: root, excluding: Set(batch.map(\.writeID))) ?? .empty
            var data = base
            for record in batch { data.set(record.output, at: root.relative(to: record.path)!) }
            // Keyed as a write of this session: sent again after a lost connection, it is not
            // applied twice; re-run, it is a new write with a new key.
            let put = TransactionRecord.SentPut(path: root, data: data, hash: base.hashString, key: session.newWriteKey())
            let requestID = requests.newID()
            transactions.sent(batchAt: root, put: put, requestID: requestID)
            send(put.message(requestID: requestID), as: .transactions(requestID))
        }
        raise(events)
    }

    /// Re-runs the transactions of `batch` (in order) whose input changed since they ran, each
    /// with the later ones overlapping it.
    /// - Returns: whether any ran again (the batch must be read anew).
    private func rerunChanged(_ batch: [TransactionRecord], events: inout [Event]) -> Bool {
        var rerun: Set<TransactionID> = []
        for record in batch where !rerun.contains(record.id) {
            // Nothing changed since it ran (it is sent at once, the common case): no need to
            // read and hash its input again.
            if record.inputGeneration == syncTree.generation { continue }
            guard record.inputHash != transactionInput(for: record.id, at: record.path).hashString else { continue }
            let order = transactions.rerunOrder([record.id])
            rerun.formUnion(order)
            for id in order { runTransaction(id, replacing: true, events: &events) }
        }
        return !rerun.isEmpty
    }

    /// Sends `put`, in doubt, again unchanged (same key, same guard): the server answers it
    /// once whatever happened to the first.
    func resend(_ put: TransactionRecord.SentPut) {
        let requestID = requests.newID()
        transactions.resent(put, requestID: requestID)
        send(put.message(requestID: requestID), as: .transactions(requestID))
    }

    /// Performs what the transaction queue returned, then raises the events left.
    func perform(_ actions: [TransactionQueue.Action]) {
        var events: [Event] = []
        perform(actions, events: &events)
        raise(events)
    }

    /// Performs what the transaction queue returned. A finished transaction raises `events`
    /// (those so far) and then its completion; its keep-synced listener goes after the
    /// completion has run, so that a completion that starts the next transaction at the
    /// location (a counter incremented in a loop) finds the location still synced, instead of
    /// an unlisten, a listen and a stale first attempt.
    private func perform(_ actions: [TransactionQueue.Action], events: inout [Event]) {
        for action in actions {
            switch action {
            case .rerun(let ids):
                for id in ids { runTransaction(id, replacing: true, events: &events) }
            case .finish(let record, let result, let write):
                if let write { events += syncTree.ackUserWrite(record.writeID, outcome: write) }
                raise(events) { [weak self] in
                    record.completion(result)
                    self?.removeListener(record.keepSynced)
                }
                events = []
            }
        }
    }
}

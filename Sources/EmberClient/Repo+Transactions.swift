import EmberCore
import EmberSync
import EmberWire

extension Repo {
    /// The most times the server may answer `datastale` before a transaction gives up.
    static let maxTransactionRetries = 25

    /// Starts a transaction at `path`: runs `update` on the current local value at once (an
    /// empty node when nothing is known yet), applies the result locally (hidden unless
    /// `applyLocally`), and sends it guarded by the hash of the value it ran on as soon as it
    /// can. `datastale` re-runs it on the newer value, at most ``maxTransactionRetries`` times.
    /// - Throws: `invalid_*` for a bad path, before anything runs.
    func transaction(
        at path: Path, applyLocally: Bool, update: @escaping (Node) -> TransactionUpdate,
        completion: @escaping (Result<TransactionRecord.Outcome, DatabaseError>) -> Void
    ) throws(DatabaseError) {
        try Self.checkWritable(path)
        let id = TransactionID(nextTransaction)
        nextTransaction += 1
        // Keep the location synced while the transaction runs, so a retry sees the server's value.
        let keepSynced = addListener(.default(at: path), types: []) { _ in }
        transactions.append(TransactionRecord(
            id: id, path: path, update: update, visibility: applyLocally ? .visible : .hidden, completion: completion,
            keepSynced: keepSynced, writeID: newWriteID()))
        var events: [Event] = []
        run(id, events: &events, replacing: false)
        raise(events)
        sendTransactions()
    }

    private func index(of id: TransactionID) -> Int? {
        transactions.firstIndex { $0.id == id }
    }

    /// Runs the transaction's update function on the value it should start from now: the local
    /// value without its own write or those of later overlapping transactions.
    private func run(_ id: TransactionID, events: inout [Event], replacing: Bool) {
        guard let index = index(of: id) else { return }
        let record = transactions[index]
        let base = transactionInput(for: index)
        transactions[index].attempts += 1
        switch record.update(base) {
        case .abort:
            if replacing { events += syncTree.ackUserWrite(record.writeID, outcome: .reverted) }
            transactions[index].output = base
            finishTransaction(id, .success((committed: false, node: base, attempts: transactions[index].attempts)), events: &events, revert: false)
        case .commit(var node):
            // The node keeps its priority unless the function gave one (Repo.ts,
            // repoStartTransaction and repoRerunTransactionQueue: "Keep the old priority if
            // there wasn't a priority explicitly specified").
            if node.priority == nil { node = node.withPriority(base.priority) }
            do throws(DatabaseError) {
                try node.validate(at: record.path)
            } catch {
                if replacing { events += syncTree.ackUserWrite(record.writeID, outcome: .reverted) }
                finishTransaction(id, .failure(error), events: &events, revert: false)
                return
            }
            let writeID = newWriteID()
            let resolved = node.resolvingServerValues(existing: base, serverTime: estimatedServerTime)
            transactions[index].writeID = writeID
            transactions[index].output = node
            transactions[index].resolvedOutput = resolved
            transactions[index].inputHash = base.hashString
            // The new value first, then the old one goes: listeners see one change, as in
            // repoRerunTransactionQueue.
            events += syncTree.applyUserOverwrite(resolved, at: record.path, writeID: writeID, visibility: record.visibility)
            if replacing { events += syncTree.ackUserWrite(record.writeID, outcome: .reverted) }
        }
    }

    private func transactionInput(for index: Int) -> Node {
        let record = transactions[index]
        let excluded = Set(transactions[index...].filter { $0.overlaps(record.path) }.map(\.writeID))
        return syncTree.completeEventCache(at: record.path, excluding: excluded) ?? .empty
    }

    /// Sends the waiting transactions that no transaction in flight holds back, as the SDKs do:
    /// all those at and below the highest waiting location go together in one put of the
    /// location's new value, guarded by the hash of the value they ran on. Each is re-run first
    /// when the value it ran on changed meanwhile.
    func sendTransactions() {
        guard connection.state == .connected else { return }
        for put in putsInDoubt() { resend(put) }
        var events: [Event] = []
        while let root = nextTransactionRoot() {
            for id in transactions.filter({ root.contains($0.path) }).map(\.id) {
                guard let index = index(of: id) else { continue }
                if transactionInput(for: index).hashString != transactions[index].inputHash {
                    run(id, events: &events, replacing: true)
                }
            }
            let batch = transactions.indices.filter { root.contains(transactions[$0].path) }
            guard !batch.isEmpty else { continue }
            let excluded = Set(batch.map { transactions[$0].writeID })
            let base = syncTree.completeEventCache(at: root, excluding: excluded) ?? .empty
            var data = base
            for index in batch {
                data.set(transactions[index].output, at: root.relative(to: transactions[index].path)!)
            }
            // Keyed as a write of this session: sent again after a lost connection, it is not
            // applied twice; re-run, it is a new write with a new key.
            let key = newWriteKey()
            let put = TransactionRecord.SentPut(path: root, data: data, hash: base.hashString, key: key)
            let requestID = newRequestID()
            for index in batch {
                transactions[index].state = .sent(requestID: requestID, put: put, abortWhenAnswered: false)
            }
            send(put.message(requestID: requestID), as: .transactions(requestID))
        }
        raise(events)
    }

    /// The puts whose answer a lost connection took, each once, in the order of their numbers
    /// (the order the server must see them in).
    func putsInDoubt() -> [TransactionRecord.SentPut] {
        var seen: Set<WriteKey> = []
        var puts: [TransactionRecord.SentPut] = []
        for record in transactions {
            if case .inDoubt(let put, _) = record.state, seen.insert(put.key).inserted { puts.append(put) }
        }
        return puts.sorted { $0.key.sequence < $1.key.sequence }
    }

    /// Sends `put` again, unchanged (same key, same guard): the server answers it once
    /// whatever happened to the first.
    func resend(_ put: TransactionRecord.SentPut) {
        let requestID = newRequestID()
        for index in transactions.indices {
            if case .inDoubt(put, let abortWhenAnswered) = transactions[index].state {
                transactions[index].state = .sent(requestID: requestID, put: put, abortWhenAnswered: abortWhenAnswered)
            }
        }
        send(put.message(requestID: requestID), as: .transactions(requestID))
    }

    /// The location of the next batch to send: the highest location among the waiting
    /// transactions that overlap the first one ready, or `nil` when none can go.
    private func nextTransactionRoot() -> Path? {
        let sent = transactions.filter(\.isOutstanding)
        for candidate in transactions where candidate.state == .waiting {
            var root = candidate.path
            while let higher = transactions.first(where: { $0.state == .waiting && $0.path != root && $0.path.contains(root) }) {
                root = higher.path
            }
            // Everything below the root goes; nothing overlapping may be in flight.
            if !sent.contains(where: { $0.overlaps(root) }) { return root }
        }
        return nil
    }

    /// The server answered a batch of transactions.
    func transactionsAnswered(requestID: Int, status: AckStatus) {
        let ids = transactions.filter { if case .sent(requestID, _, _) = $0.state { true } else { false } }.map(\.id)
        var events: [Event] = []
        for id in ids {
            guard let index = index(of: id), case .sent(_, _, let abortWhenAnswered) = transactions[index].state else { continue }
            let record = transactions[index]
            switch status {
            case .ok:
                events += syncTree.ackUserWrite(record.writeID, outcome: .confirmed)
                // Its own result, not the latest value (repoSendTransactionQueue: onComplete gets
                // currentOutputSnapshotResolved; transaction.test.ts "Merged transactions have
                // correct snapshot").
                finishTransaction(
                    id, .success((committed: true, node: record.resolvedOutput, attempts: record.attempts)), events: &events,
                    revert: false)
            case .failed(let error) where error.code == DatabaseError.dataStale().code:
                if abortWhenAnswered {
                    finishTransaction(id, .failure(.overriddenBySet(at: record.path)), events: &events, revert: true)
                } else if record.retries + 1 >= Self.maxTransactionRetries {
                    finishTransaction(id, .failure(.maxRetries(at: record.path)), events: &events, revert: true)
                } else {
                    transactions[index].retries += 1
                    transactions[index].state = .waiting
                }
            case .failed(let error):
                finishTransaction(id, .failure(error.path == nil ? error.at(record.path) : error), events: &events, revert: true)
            }
        }
        // Re-run what the server refused as stale, in order, on the newer value.
        for id in ids {
            guard let index = index(of: id), transactions[index].state == .waiting else { continue }
            run(id, events: &events, replacing: true)
        }
        raise(events)
        sendTransactions()
    }

    /// Aborts the transactions a set at `path` overrides: waiting ones now, sent ones (and
    /// those in doubt) when the server answers, since their put may already have landed.
    func abortTransactions(overlapping path: Path) {
        var events: [Event] = []
        for id in transactions.filter({ $0.overlaps(path) }).map(\.id) {
            guard let index = index(of: id) else { continue }
            switch transactions[index].state {
            case .waiting:
                finishTransaction(id, .failure(.overriddenBySet(at: transactions[index].path)), events: &events, revert: true)
            case .sent(let requestID, let put, _):
                transactions[index].state = .sent(requestID: requestID, put: put, abortWhenAnswered: true)
            case .inDoubt(let put, _):
                transactions[index].state = .inDoubt(put: put, abortWhenAnswered: true)
            }
        }
        raise(events)
    }

    /// Ends a transaction: drops it, reverts its write when asked, raises `events` and then
    /// its completion, and stops its keep-synced listener.
    private func finishTransaction(
        _ id: TransactionID, _ result: Result<TransactionRecord.Outcome, DatabaseError>,
        events: inout [Event], revert: Bool
    ) {
        guard let index = index(of: id) else { return }
        let record = transactions.remove(at: index)
        if revert {
            events += syncTree.ackUserWrite(record.writeID, outcome: .reverted)
        }
        // The keep-synced listener goes after the completion has run: a completion that starts
        // the next transaction at the location (a counter incremented in a loop) finds the
        // location still synced, instead of an unlisten, a listen and a stale first attempt.
        raise(events) { [weak self] in
            record.completion(result)
            self?.removeListener(record.keepSynced)
        }
        events = []
    }

    /// How many transactions are running.
    var runningTransactionCount: Int { transactions.count }
}

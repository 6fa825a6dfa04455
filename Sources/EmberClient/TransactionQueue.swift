import EmberCore
import EmberSync
import EmberWire

/// The running transactions of a client, as a state machine: the repo feeds it what happens
/// (a run's result, a batch sent, the server's answer, an overlapping set, a lost connection)
/// and performs the actions it returns. It never touches the sync tree nor calls user code: the
/// repo runs the update functions and applies their writes.
///
/// A transaction is `waiting` (run locally, to be sent when connected and no earlier
/// overlapping transaction is in flight), `sent` (its batch's put, guarded by the hash of the
/// value it ran on, is in flight) or `inDoubt` (sent, but the connection went before the answer),
/// then finished and removed. Batching follows Firebase's `Repo.ts` (`repoSendReadyTransactions`,
/// `repoSendTransactionQueue`, `repoRerunTransactions`).
struct TransactionQueue {
    /// The most times the server may answer `datastale` before a transaction gives up
    /// (Firebase's `MAX_TRANSACTION_RETRIES`).
    static let maxRetries = 25

    /// What the repo must do, in order.
    enum Action {
        /// Run the transaction's update function again on its current input, replacing its
        /// write.
        case rerun(TransactionID)
        /// The transaction ended and left the queue: acknowledge its write (`nil`: the run
        /// already dealt with it), deliver `result` to its completion, then stop its
        /// keep-synced listener.
        case finish(TransactionRecord, Result<TransactionRecord.Outcome, DatabaseError>, write: WriteOutcome?)
    }

    /// What a run of the update function came to.
    enum RunResult {
        /// The function aborted on `input`.
        case aborted(input: Node)
        /// The function returned a value that cannot be stored.
        case invalid(DatabaseError)
        /// The function returned `output` (applied locally as `resolved`, write `writeID`) from
        /// an input whose hash is `inputHash`.
        case committed(output: Node, resolved: Node, inputHash: String, writeID: WriteID)
    }

    private var records: [TransactionRecord] = []
    private var next = 1

    /// How many transactions are running.
    var count: Int { records.count }

    /// A new transaction number.
    /// - Complexity: O(1).
    mutating func newID() -> TransactionID {
        defer { next += 1 }
        return TransactionID(next)
    }

    /// Adds a transaction, waiting, at the end of the queue (it runs before it is sent).
    /// - Complexity: O(1) amortized.
    mutating func add(_ record: TransactionRecord) {
        records.append(record)
    }

    /// The transaction `id`, if it is still running.
    /// - Complexity: O(n).
    func record(_ id: TransactionID) -> TransactionRecord? {
        records.first { $0.id == id }
    }

    /// Whether `id` is the keep-synced listener of a running transaction.
    /// - Complexity: O(n).
    func holdsListener(_ id: RegistrationID) -> Bool {
        records.contains { $0.keepSynced == id }
    }

    /// The writes a run of `id` must not see: its own, and those of the later transactions
    /// that overlap it.
    /// - Complexity: O(n).
    func writesHidden(from id: TransactionID) -> Set<WriteID> {
        guard let start = records.firstIndex(where: { $0.id == id }) else { return [] }
        let path = records[start].path
        return Set(records[start...].filter { $0.overlaps(path) }.map(\.writeID))
    }

    /// Records a run of `id`; an abort or an invalid value finishes it.
    /// - Complexity: O(n).
    mutating func ran(_ id: TransactionID, _ result: RunResult) -> [Action] {
        guard let index = records.firstIndex(where: { $0.id == id }) else { return [] }
        records[index].attempts += 1
        switch result {
        case .aborted(let input):
            let record = records.remove(at: index)
            return [.finish(record, .success((committed: false, node: input, attempts: record.attempts)), write: nil)]
        case .invalid(let error):
            return [.finish(records.remove(at: index), .failure(error), write: nil)]
        case .committed(let output, let resolved, let inputHash, let writeID):
            records[index].writeID = writeID
            records[index].output = output
            records[index].resolvedOutput = resolved
            records[index].inputHash = inputHash
            return []
        }
    }

    // MARK: Sending

    /// The location of the next batch to send: the highest location among the waiting
    /// transactions that overlap the first one ready, or `nil` when none can go (every waiting
    /// one overlaps one in flight).
    /// - Complexity: O(n²).
    func nextBatchRoot() -> Path? {
        let outstanding = records.filter(\.isOutstanding)
        for candidate in records where candidate.state == .waiting {
            var root = candidate.path
            while let higher = records.first(where: { $0.state == .waiting && $0.path != root && $0.path.contains(root) }) {
                root = higher.path
            }
            if !outstanding.contains(where: { $0.overlaps(root) }) { return root }
        }
        return nil
    }

    /// The transactions at and below `root`, in order.
    /// - Complexity: O(n).
    func batch(at root: Path) -> [TransactionRecord] {
        records.filter { root.contains($0.path) }
    }

    /// The batch at `root` went as request `requestID`, carrying `put`.
    /// - Complexity: O(n).
    mutating func sent(batchAt root: Path, put: TransactionRecord.SentPut, requestID: Int) {
        for index in records.indices where root.contains(records[index].path) {
            records[index].state = .sent(requestID: requestID, put: put, abortWhenAnswered: false)
        }
    }

    /// The puts whose answer a lost connection took, each once, in the order of their numbers
    /// (the order the server must see them in).
    /// - Complexity: O(n log n).
    func putsInDoubt() -> [TransactionRecord.SentPut] {
        var seen: Set<WriteKey> = []
        var puts: [TransactionRecord.SentPut] = []
        for record in records {
            if case .inDoubt(let put, _) = record.state, seen.insert(put.key).inserted { puts.append(put) }
        }
        return puts.sorted { $0.key.sequence < $1.key.sequence }
    }

    /// `put`, in doubt, went again as request `requestID`.
    /// - Complexity: O(n).
    mutating func resent(_ put: TransactionRecord.SentPut, requestID: Int) {
        for index in records.indices {
            if case .inDoubt(put, let abortWhenAnswered) = records[index].state {
                records[index].state = .sent(requestID: requestID, put: put, abortWhenAnswered: abortWhenAnswered)
            }
        }
    }

    /// The connection went: what was sent is in doubt (it may have landed).
    /// - Complexity: O(n).
    mutating func connectionLost() {
        for index in records.indices {
            if case .sent(_, let put, let abortWhenAnswered) = records[index].state {
                records[index].state = .inDoubt(put: put, abortWhenAnswered: abortWhenAnswered)
            }
        }
    }

    // MARK: Answers

    /// The server answered request `requestID` (a batch): `ok` finishes its transactions;
    /// `datastale` sends them back to waiting and re-runs them, unless they were overridden
    /// by a set or have been refused too often; any other refusal fails them.
    /// - Complexity: O(n · b) for a batch of b transactions.
    mutating func answered(requestID: Int, status: AckStatus) -> [Action] {
        let ids = records.filter { if case .sent(requestID, _, _) = $0.state { true } else { false } }.map(\.id)
        var actions: [Action] = []
        var reruns: [Action] = []
        for id in ids {
            guard let index = records.firstIndex(where: { $0.id == id }),
                case .sent(_, _, let abortWhenAnswered) = records[index].state
            else { continue }
            let record = records[index]
            switch status {
            case .ok:
                records.remove(at: index)
                // Its own result, not the latest value (repoSendTransactionQueue: onComplete gets
                // currentOutputSnapshotResolved; transaction.test.ts "Merged transactions have
                // correct snapshot").
                actions.append(.finish(
                    record, .success((committed: true, node: record.resolvedOutput, attempts: record.attempts)),
                    write: .confirmed))
            case .failed(let error) where error.code == DatabaseError.dataStale().code:
                if abortWhenAnswered {
                    records.remove(at: index)
                    actions.append(.finish(record, .failure(.overriddenBySet(at: record.path)), write: .reverted))
                } else if record.retries + 1 >= Self.maxRetries {
                    records.remove(at: index)
                    actions.append(.finish(record, .failure(.maxRetries(at: record.path)), write: .reverted))
                } else {
                    records[index].retries += 1
                    records[index].state = .waiting
                    reruns.append(.rerun(id))
                }
            case .failed(let error):
                records.remove(at: index)
                actions.append(.finish(record, .failure(error.path == nil ? error.at(record.path) : error), write: .reverted))
            }
        }
        // What the server refused as stale re-runs after the others finished, in order.
        return actions + reruns
    }

    /// A set at `path` overrides the transactions it overlaps: waiting ones finish now, sent
    /// ones (and those in doubt) when the server answers, since their put may have landed.
    /// - Complexity: O(n).
    mutating func abort(overlapping path: Path) -> [Action] {
        var actions: [Action] = []
        var index = records.startIndex
        while index < records.endIndex {
            guard records[index].overlaps(path) else {
                index += 1
                continue
            }
            switch records[index].state {
            case .waiting:
                let record = records.remove(at: index)
                actions.append(.finish(record, .failure(.overriddenBySet(at: record.path)), write: .reverted))
                continue
            case .sent(let requestID, let put, _):
                records[index].state = .sent(requestID: requestID, put: put, abortWhenAnswered: true)
            case .inDoubt(let put, _):
                records[index].state = .inDoubt(put: put, abortWhenAnswered: true)
            }
            index += 1
        }
        return actions
    }

    /// Whether a run of `id` needs redoing before it is sent: the value it ran on changed.
    /// - Complexity: O(n).
    func inputHash(of id: TransactionID) -> String? {
        record(id)?.inputHash
    }
}

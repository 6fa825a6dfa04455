import EmberCore
import EmberSync
import EmberWire
import DequeModule
import HeapModule

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
        /// Run these transactions' update functions again, in this order, each on its current
        /// input (the previous one's output where they overlap), replacing their writes.
        case rerun([TransactionID])
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
        /// an input whose hash is `inputHash`; the sync tree was at `generation` once the
        /// value was applied.
        case committed(output: Node, resolved: Node, inputHash: String, generation: UInt64, writeID: WriteID)
    }

    /// The running transactions by number; their order is their numbers'.
    private var records: [TransactionID: TransactionRecord] = [:]
    /// Where they are.
    private var locations = TransactionLocations()
    /// Their keep-synced listeners.
    private var listeners: Set<RegistrationID> = []
    /// The transactions of each put in flight, by request, in order.
    private var inFlight: [Int: [TransactionID]] = [:]
    /// The transactions of each put in doubt, by its key, in order.
    private var inDoubt: [WriteKey: [TransactionID]] = [:]
    /// Locations where a batch may have become ready to go (a transaction added, finished or
    /// sent back to waiting there), oldest first: ``nextBatchRoot()`` looks only there.
    private var marks: Deque<Path> = []
    private var next = 1

    /// How many transactions are running.
    var count: Int { records.count }

    /// Every transaction not yet completed, oldest first.
    /// - Complexity: O(n log n).
    var all: [TransactionRecord] { records.values.sorted { $0.id < $1.id } }

    /// A new transaction number.
    /// - Complexity: O(1).
    mutating func newID() -> TransactionID {
        defer { next += 1 }
        return TransactionID(next)
    }

    /// Adds a transaction, waiting, at the end of the queue (it runs before it is sent).
    /// - Complexity: O(d) for its path of depth d.
    mutating func add(_ record: TransactionRecord) {
        records[record.id] = record
        locations.add(record.id, at: record.path)
        listeners.insert(record.keepSynced)
        marks.append(record.path)
    }

    /// The transaction `id`, if it is still running.
    /// - Complexity: O(1).
    func record(_ id: TransactionID) -> TransactionRecord? {
        records[id]
    }

    /// Whether `id` is the keep-synced listener of a running transaction.
    /// - Complexity: O(1).
    func holdsListener(_ id: RegistrationID) -> Bool {
        listeners.contains(id)
    }

    /// The writes a run of `id` must not see: its own, and those of the later transactions
    /// that overlap it.
    /// - Complexity: O(d + m) for m transactions at, above or below its location.
    func writesHidden(from id: TransactionID) -> Set<WriteID> {
        guard let path = records[id]?.path else { return [] }
        return Set(locations.overlapping(path).lazy.filter { $0 >= id }.compactMap { records[$0]?.writeID })
    }

    /// Removes a finished transaction.
    /// - Complexity: O(d).
    private mutating func remove(_ id: TransactionID) -> TransactionRecord? {
        guard let record = records.removeValue(forKey: id) else { return nil }
        locations.remove(id, at: record.path, standing: record.isOutstanding ? .outstanding : .waiting)
        listeners.remove(record.keepSynced)
        marks.append(record.path)
        return record
    }

    /// Records a run of `id`; an abort or an invalid value finishes it.
    /// - Complexity: O(d).
    mutating func ran(_ id: TransactionID, _ result: RunResult) -> [Action] {
        guard let index = records.index(forKey: id) else { return [] }
        records.values[index].attempts += 1
        switch result {
        case .aborted(let input):
            let record = remove(id)!
            return [.finish(record, .success((committed: false, node: input, attempts: record.attempts)), write: nil)]
        case .invalid(let error):
            return [.finish(remove(id)!, .failure(error), write: nil)]
        case .committed(let output, let resolved, let inputHash, let generation, let writeID):
            // One lookup, the record changed in place.
            records.values[index].writeID = writeID
            records.values[index].output = output
            records.values[index].resolvedOutput = resolved
            records.values[index].inputHash = inputHash
            records.values[index].inputGeneration = generation
            return []
        }
    }

    /// The transactions to run again, in order, when `stale` must: those, and every later
    /// waiting transaction that overlaps one of them (its input was the earlier one's output),
    /// and so on (firebase-js-sdk `repoRerunTransactionQueue` re-runs every transaction queued
    /// at the location, each on the previous one's output: re-running one alone left the next
    /// one's write under its new write, and the one after ran on the wrong value).
    /// - Complexity: O((r + o) log(r + o)) for r transactions re-run and o overlaps looked at.
    func rerunOrder(_ stale: [TransactionID]) -> [TransactionID] {
        guard !stale.isEmpty else { return [] }
        var heap = Heap(stale)
        var chosen: Set<TransactionID> = []
        var expanded: Set<Path> = []
        var order: [TransactionID] = []
        while let id = heap.popMin() {
            guard !chosen.contains(id), let record = records[id], record.state == .waiting else { continue }
            chosen.insert(id)
            order.append(id)
            // The first (lowest) transaction at a location brings every later one overlapping it.
            guard expanded.insert(record.path).inserted else { continue }
            for other in locations.overlapping(record.path) where other > id && !chosen.contains(other) {
                heap.insert(other)
            }
        }
        return order
    }

    // MARK: Sending

    /// The location of the next batch to send: the highest location of the waiting
    /// transactions that overlap one that may have become ready, when nothing overlapping it is
    /// in flight; `nil` when none can go. Looks only where transactions were added, finished or
    /// sent back since the last call (a location passed over is looked at again when a
    /// transaction overlapping it finishes).
    /// - Complexity: O(d) per location looked at, amortized.
    mutating func nextBatchRoot() -> Path? {
        while let mark = marks.popFirst() {
            let roots = locations.batchRoots(near: mark)
            guard let first = roots.first else { continue }
            if roots.count == 1 { return first }
            // Several below the mark: the one whose first transaction is oldest goes first, the
            // others are looked at again next.
            let ordered = roots.sorted { locations.all(at: $0).first! < locations.all(at: $1).first! }
            for root in ordered.dropFirst().reversed() { marks.prepend(root) }
            return ordered[0]
        }
        return nil
    }

    /// The transactions at and below `root`, in order.
    /// - Complexity: O(d + b log b) for b transactions there.
    func batch(at root: Path) -> [TransactionRecord] {
        locations.all(at: root).compactMap { records[$0] }
    }

    /// The batch at `root` went as request `requestID`, carrying `put`.
    /// - Complexity: O(b d) for b transactions.
    mutating func sent(batchAt root: Path, put: TransactionRecord.SentPut, requestID: Int) {
        let ids = locations.all(at: root)
        for id in ids {
            guard let record = records[id] else { continue }
            if !record.isOutstanding { locations.move(1, at: record.path, to: .outstanding) }
            records[id]!.state = .sent(requestID: requestID, put: put, abortWhenAnswered: false)
        }
        inFlight[requestID, default: []] += ids
    }

    /// The puts whose answer a lost connection took, each once, in the order of their numbers
    /// (the order the server must see them in).
    /// - Complexity: O(p log p) for p puts in doubt.
    func putsInDoubt() -> [TransactionRecord.SentPut] {
        inDoubt.values.compactMap { ids -> TransactionRecord.SentPut? in
            for id in ids { if case .inDoubt(let put, _)? = records[id]?.state { return put } }
            return nil
        }
        .sorted { $0.key.sequence < $1.key.sequence }
    }

    /// `put`, in doubt, went again as request `requestID`.
    /// - Complexity: O(b) for the b transactions it carries.
    mutating func resent(_ put: TransactionRecord.SentPut, requestID: Int) {
        let ids = inDoubt.removeValue(forKey: put.key) ?? []
        for id in ids {
            if case .inDoubt(put, let abortWhenAnswered)? = records[id]?.state {
                records[id]!.state = .sent(requestID: requestID, put: put, abortWhenAnswered: abortWhenAnswered)
            }
        }
        inFlight[requestID, default: []] += ids
    }

    /// The connection went: what was sent is in doubt (it may have landed).
    /// - Complexity: O(s) for s transactions in flight.
    mutating func connectionLost() {
        for (_, ids) in inFlight {
            for id in ids {
                if case .sent(_, let put, let abortWhenAnswered)? = records[id]?.state {
                    records[id]!.state = .inDoubt(put: put, abortWhenAnswered: abortWhenAnswered)
                    inDoubt[put.key, default: []].append(id)
                }
            }
        }
        inFlight = [:]
    }

    // MARK: Answers

    /// The server answered request `requestID` (a batch): `ok` finishes its transactions;
    /// `datastale` sends them back to waiting and re-runs them (with every later waiting
    /// transaction overlapping them, ``rerunOrder(_:)``), unless they were overridden by a set
    /// or have been refused too often; any other refusal fails them.
    /// - Complexity: O(b d) for a batch of b transactions, plus the re-runs' order.
    mutating func answered(requestID: Int, status: AckStatus) -> [Action] {
        let ids = inFlight.removeValue(forKey: requestID) ?? []
        var actions: [Action] = []
        var stale: [TransactionID] = []
        var reverted: [TransactionRecord] = []
        for id in ids {
            guard let record = records[id], case .sent(requestID, _, let abortWhenAnswered) = record.state else { continue }
            switch status {
            case .ok:
                _ = remove(id)
                // Its own result, not the latest value (repoSendTransactionQueue: onComplete gets
                // currentOutputSnapshotResolved; transaction.test.ts "Merged transactions have
                // correct snapshot").
                actions.append(.finish(
                    record, .success((committed: true, node: record.resolvedOutput, attempts: record.attempts)),
                    write: .confirmed))
            case .failed(let error) where error.code == DatabaseError.dataStale().code:
                if abortWhenAnswered {
                    _ = remove(id)
                    reverted.append(record)
                    actions.append(.finish(record, .failure(.overriddenBySet(at: record.path)), write: .reverted))
                } else if record.retries + 1 >= Self.maxRetries {
                    _ = remove(id)
                    reverted.append(record)
                    actions.append(.finish(record, .failure(.maxRetries(at: record.path)), write: .reverted))
                } else {
                    records[id]!.retries += 1
                    records[id]!.state = .waiting
                    locations.move(1, at: record.path, to: .waiting)
                    marks.append(record.path)
                    stale.append(id)
                }
            case .failed(let error):
                _ = remove(id)
                reverted.append(record)
                actions.append(.finish(record, .failure(error.path == nil ? error.at(record.path) : error), write: .reverted))
            }
        }
        // What the server refused as stale re-runs after the others finished, in order, with
        // what ran on the output of one that failed.
        guard !stale.isEmpty || !reverted.isEmpty else { return actions }
        let rerun = rerunOrder(stale + waitingAfter(reverted))
        if !rerun.isEmpty { actions.append(.rerun(rerun)) }
        return actions
    }

    /// The waiting transactions that started after one of `reverted` and overlap it: they ran
    /// on its output, which is gone.
    /// - Complexity: O(r (d + m)) for r reverted transactions and m overlapping each.
    private func waitingAfter(_ reverted: [TransactionRecord]) -> [TransactionID] {
        reverted.flatMap { record in
            locations.overlapping(record.path).filter { $0 > record.id && records[$0]?.state == .waiting }
        }
    }

    /// A set at `path` overrides the transactions it overlaps: waiting ones finish now, sent
    /// ones (and those in doubt) when the server answers, since their put may have landed.
    /// - Complexity: O(d + m log m) for m transactions at, above or below `path`.
    mutating func abort(overlapping path: Path) -> [Action] {
        // No transaction: nothing to walk (every set and update asks).
        guard !records.isEmpty else { return [] }
        var actions: [Action] = []
        var reverted: [TransactionRecord] = []
        for id in locations.overlapping(path).sorted() {
            guard let record = records[id] else { continue }
            switch record.state {
            case .waiting:
                _ = remove(id)
                reverted.append(record)
                actions.append(.finish(record, .failure(.overriddenBySet(at: record.path)), write: .reverted))
            case .sent(let requestID, let put, _):
                records[id]!.state = .sent(requestID: requestID, put: put, abortWhenAnswered: true)
            case .inDoubt(let put, _):
                records[id]!.state = .inDoubt(put: put, abortWhenAnswered: true)
            }
        }
        // Those left that ran on an aborted one's output run again (firebase-js-sdk
        // `repoSetWithPriority`: `repoAbortTransactions`, then `repoRerunTransactions`).
        guard !reverted.isEmpty else { return actions }
        let rerun = rerunOrder(waitingAfter(reverted))
        if !rerun.isEmpty { actions.append(.rerun(rerun)) }
        return actions
    }
}

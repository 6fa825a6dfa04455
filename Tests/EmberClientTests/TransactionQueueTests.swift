@testable import EmberClient
import EmberCore
import EmberSync
import EmberWire
import Testing

/// The transaction queue as a state machine: inputs in, actions out, no sync tree, no user code.
@Suite("TransactionQueue")
struct TransactionQueueTests {
    /// A queue with waiting transactions at `paths`, each committed once with write id 100+i.
    private func queue(_ paths: [Path]) -> (TransactionQueue, [TransactionID]) {
        var queue = TransactionQueue()
        var ids: [TransactionID] = []
        for (offset, path) in paths.enumerated() {
            let id = queue.newID()
            queue.add(TransactionRecord(
                id: id, path: path, update: { _ in .abort }, visibility: .visible, completion: { _ in },
                keepSynced: RegistrationID(offset + 1), writeID: WriteID(offset + 1)))
            let actions = queue.ran(
                id, .committed(output: Node(.int(Int64(offset))), resolved: Node(.int(Int64(offset))), inputHash: "h\(offset)", generation: UInt64(offset),
                               writeID: WriteID(100 + offset)))
            #expect(actions.isEmpty)
            ids.append(id)
        }
        return (queue, ids)
    }

    private func put(_ path: Path, _ sequence: Int64) -> TransactionRecord.SentPut {
        TransactionRecord.SentPut(path: path, data: .empty, hash: "", key: WriteKey(writer: "w.1", sequence: sequence))
    }

    /// The finished transactions and their outcomes, and the re-runs, in order.
    private func describe(_ actions: [TransactionQueue.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .rerun(let ids): "rerun \(ids.map { "\($0.rawValue)" }.joined(separator: ","))"
            case .finish(let record, let result, let write):
                switch result {
                case .success(let outcome):
                    "finish \(record.id.rawValue) committed=\(outcome.committed) \(outcome.node.jsonString()) attempts=\(outcome.attempts) write=\(write.map { "\($0)" } ?? "-")"
                case .failure(let error):
                    "finish \(record.id.rawValue) \(error.code) write=\(write.map { "\($0)" } ?? "-")"
                }
            }
        }
    }

    @Test("a batch goes from the highest waiting location; nothing overlapping one in flight goes")
    func batchRoots() {
        var (queue, _) = queue(["a/b", "a", "c"])
        #expect(queue.nextBatchRoot() == "a")
        #expect(queue.batch(at: "a").map(\.path) == ["a/b", "a"])
        queue.sent(batchAt: "a", put: put("a", 1), requestID: 7)
        #expect(queue.nextBatchRoot() == "c")
        queue.sent(batchAt: "c", put: put("c", 2), requestID: 8)
        #expect(queue.nextBatchRoot() == nil)
        // A new transaction below one in flight waits for its answer.
        let id = queue.newID()
        queue.add(TransactionRecord(
            id: id, path: "a/b/c", update: { _ in .abort }, visibility: .visible, completion: { _ in },
            keepSynced: RegistrationID(9), writeID: WriteID(9)))
        #expect(queue.nextBatchRoot() == nil)
        _ = queue.answered(requestID: 7, status: .ok())
        #expect(queue.nextBatchRoot() == "a/b/c")
    }

    @Test("a run hides its own write and those of later overlapping transactions, not earlier ones")
    func hiddenWrites() {
        let (queue, ids) = queue(["a", "a/b", "c", "a/b/c"])
        #expect(queue.writesHidden(from: ids[1]) == [WriteID(101), WriteID(103)])
        #expect(queue.writesHidden(from: ids[0]) == [WriteID(100), WriteID(101), WriteID(103)])
        #expect(queue.writesHidden(from: ids[2]) == [WriteID(102)])
    }

    @Test("a re-run brings every later waiting transaction that overlaps it, transitively, in order; not earlier ones")
    func rerunOrder() {
        let (queue, ids) = queue(["a", "a/b", "c", "a/b/c", "a"])
        #expect(queue.rerunOrder([ids[0]]) == [ids[0], ids[1], ids[3], ids[4]])
        #expect(queue.rerunOrder([ids[1]]) == [ids[1], ids[3], ids[4]])
        #expect(queue.rerunOrder([ids[2]]) == [ids[2]])
        let (chain, chained) = self.queue(["a/b", "a", "a/c", "d"])
        // a/c does not overlap a/b, but runs on the output of a, which does.
        #expect(chain.rerunOrder([chained[0]]) == [chained[0], chained[1], chained[2]])
    }

    @Test("ok finishes every transaction of the batch with its own resolved output, its write confirmed")
    func okAnswer() {
        var (queue, _) = queue(["a/b", "a"])
        queue.sent(batchAt: "a", put: put("a", 1), requestID: 7)
        #expect(describe(queue.answered(requestID: 7, status: .ok())) == [
            "finish 1 committed=true 0 attempts=1 write=confirmed",
            "finish 2 committed=true 1 attempts=1 write=confirmed",
        ])
        #expect(queue.count == 0)
        // An answer for a request no transaction carries does nothing.
        #expect(queue.answered(requestID: 7, status: .ok()).isEmpty)
    }

    @Test("datastale sends the batch back to waiting and re-runs it after the others finished; the 25th gives up")
    func staleAnswers() {
        var (queue, _) = queue(["a", "b"])
        queue.sent(batchAt: "a", put: put("a", 1), requestID: 1)
        #expect(describe(queue.answered(requestID: 1, status: .failed(.dataStale()))) == ["rerun 1"])
        #expect(queue.nextBatchRoot() == "a")
        for attempt in 2..<TransactionQueue.maxRetries {
            queue.sent(batchAt: "a", put: put("a", Int64(attempt)), requestID: attempt)
            #expect(describe(queue.answered(requestID: attempt, status: .failed(.dataStale()))) == ["rerun 1"])
        }
        queue.sent(batchAt: "a", put: put("a", 99), requestID: 99)
        #expect(describe(queue.answered(requestID: 99, status: .failed(.dataStale()))) == ["finish 1 max_retries write=reverted"])
        #expect(queue.count == 1)
    }

    @Test("any other refusal fails the transaction at its location, its write reverted")
    func refusal() {
        var (queue, _) = queue(["a/b"])
        queue.sent(batchAt: "a/b", put: put("a/b", 1), requestID: 3)
        #expect(describe(queue.answered(requestID: 3, status: .failed(.permissionDenied()))) == [
            "finish 1 permission_denied write=reverted"
        ])
    }

    @Test("a set aborts waiting transactions at once and sent ones when a stale answer comes (Repo.ts SENT_NEEDS_ABORT)")
    func setAborts() {
        var (queue, _) = queue(["a", "a/b", "c"])
        queue.sent(batchAt: "a", put: put("a", 1), requestID: 1)
        // Both below "a" are in flight: nothing finishes yet.
        #expect(queue.abort(overlapping: "a/b/x").isEmpty)
        let waiting = queue.newID()
        queue.add(TransactionRecord(
            id: waiting, path: "c/d", update: { _ in .abort }, visibility: .visible, completion: { _ in },
            keepSynced: RegistrationID(9), writeID: WriteID(9)))
        #expect(describe(queue.abort(overlapping: "c")) == [
            "finish 3 overridden_by_set write=reverted", "finish 4 overridden_by_set write=reverted",
        ])
        // A stale answer of an overridden transaction ends it instead of re-running it.
        #expect(describe(queue.answered(requestID: 1, status: .failed(.dataStale()))) == [
            "finish 1 overridden_by_set write=reverted", "finish 2 overridden_by_set write=reverted",
        ])
    }

    @Test("a lost connection leaves sent puts in doubt, each once, by number; a resend sends them again unchanged")
    func inDoubt() {
        var (queue, _) = queue(["b", "a", "a/x"])
        queue.sent(batchAt: "b", put: put("b", 5), requestID: 1)
        queue.sent(batchAt: "a", put: put("a", 2), requestID: 2)
        queue.connectionLost()
        #expect(queue.putsInDoubt() == [put("a", 2), put("b", 5)])
        #expect(queue.nextBatchRoot() == nil, "a put in doubt holds back what overlaps it")
        queue.resent(put("a", 2), requestID: 10)
        #expect(queue.putsInDoubt() == [put("b", 5)])
        #expect(describe(queue.answered(requestID: 10, status: .ok())).count == 2)
        // An answer on the old request number means nothing now.
        #expect(queue.answered(requestID: 1, status: .ok()).isEmpty)
    }

    @Test("an abort or an invalid value finishes the run, with the attempts counted and no write to acknowledge")
    func runOutcomes() {
        var (queue, ids) = queue(["a", "b"])
        #expect(describe(queue.ran(ids[0], .aborted(input: Node(.int(7))))) == ["finish 1 committed=false 7 attempts=2 write=-"])
        #expect(describe(queue.ran(ids[1], .invalid(.invalidValue("bad", at: "b")))) == ["finish 2 invalid_value write=-"])
        #expect(queue.count == 0)
        #expect(queue.ran(ids[0], .aborted(input: .empty)).isEmpty, "a finished transaction does not run again")
    }
}

import Synchronization

/// The deferred commits a client's store hands to its own queue (``ClientStore/commitInBackground()``):
/// whether one was submitted since the engine's thread last waited for them, and the changes of
/// those that failed, in order, to be taken back by the next commit made on the engine's thread;
/// and whether a size check made after one of them found the cache over its limit, so that the
/// next commit on the engine's thread prunes.
///
/// Shared by the engine's thread and the store's queue; every field is behind one lock.
final class BackgroundCommits: Sendable {
    /// The changes of a background commit that failed (or stood aside after one that failed).
    struct Failure: Sendable {
        let changes: [ClientStore.Change]
        let queryChanges: [Int64: TrackedQuery?]
    }

    private struct State {
        var submitted = false
        var failures: [Failure] = []
        var pruneDue = false
    }

    private let state = Mutex(State())

    /// Whether a background commit failed and its changes wait to be taken back.
    /// - Complexity: O(1).
    var hasFailures: Bool { state.withLock { !$0.failures.isEmpty } }

    /// Notes that a commit was handed to the store's queue.
    func didSubmit() {
        state.withLock { $0.submitted = true }
    }

    /// Whether a commit was handed over since the engine's thread last waited for them.
    /// - Complexity: O(1).
    var hasSubmitted: Bool { state.withLock { $0.submitted } }

    /// Whether a commit was handed over since the last call (which clears it).
    func takeSubmitted() -> Bool {
        state.withLock { state in
            defer { state.submitted = false }
            return state.submitted
        }
    }

    /// Records a commit that failed or stood aside after one that failed.
    func failed(_ changes: [ClientStore.Change], _ queryChanges: [Int64: TrackedQuery?]) {
        state.withLock { $0.failures.append(Failure(changes: changes, queryChanges: queryChanges)) }
    }

    /// Notes that a size check on the store's queue found the cache over its limit.
    func noteCacheOverLimit() {
        state.withLock { $0.pruneDue = true }
    }

    /// Whether a size check found the cache over its limit since the last call (which clears it).
    /// - Complexity: O(1).
    func takePruneDue() -> Bool {
        state.withLock { state in
            defer { state.pruneDue = false }
            return state.pruneDue
        }
    }

    /// Whether a size check found the cache over its limit, and no commit pruned since.
    /// - Complexity: O(1).
    var isPruneDue: Bool { state.withLock { $0.pruneDue } }

    /// The failures recorded, oldest first, forgotten here.
    func takeFailures() -> [Failure] {
        state.withLock { state in
            defer { state.failures = [] }
            return state.failures
        }
    }
}

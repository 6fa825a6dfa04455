import Foundation

/// Threads that each prepare untimed (open their connections), wait at a start line until
/// every one is ready, are released together, and report when each finished.
///
/// A thread's state (a connection, say) is made and used on that thread only. Usage:
/// ``start(setUp:work:)``, ``waitUntilReady()``, note the time, ``release()``, then
/// ``results()``. When a set-up fails, ``waitUntilReady()`` throws, and ``release()`` then tells
/// the other threads to skip their work (``results()`` still waits for them).
final class ThreadTeam<Output: Sendable>: @unchecked Sendable {
    /// Why a team gave no results.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What one thread did: its output and the moment it finished, or why it failed.
    private enum Outcome {
        case done(Output, ContinuousClock.Instant)
        case failed(String)
        case skipped
    }

    // Every field below is guarded by `condition`.
    private let condition = NSCondition()
    private let count: Int
    private var ready = 0
    private var setUpFailure: String?
    private var released = false
    private var outcomes: [Outcome?]
    private var finished = 0

    init(threads: Int) {
        count = threads
        outcomes = Array(repeating: nil, count: threads)
    }

    /// Starts the threads: thread `index` runs `setUp(index)`, waits for ``release()``, then runs
    /// `work(index, state)`.
    func start<State>(
        setUp: @escaping @Sendable (Int) throws -> State,
        work: @escaping @Sendable (Int, State) throws -> Output
    ) {
        for index in 0..<count {
            let thread = Thread { [self] in
                let outcome: Outcome
                var arrived = false
                do {
                    let state = try setUp(index)
                    arrived = true
                    if arrive(failure: nil) {
                        let output = try work(index, state)
                        outcome = .done(output, ContinuousClock.now)
                    } else {
                        outcome = .skipped
                    }
                } catch {
                    if !arrived { _ = arrive(failure: "\(error)") }
                    outcome = .failed("\(error)")
                }
                finish(index, outcome)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// Waits until every thread has set up; throws the first set-up failure.
    func waitUntilReady() throws(Failure) {
        condition.lock()
        defer { condition.unlock() }
        while ready < count { condition.wait() }
        if let setUpFailure { throw Failure(description: setUpFailure) }
    }

    /// Lets the threads start their work (or skip it after a set-up failure).
    func release() {
        condition.lock()
        released = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits for every thread; each one's output and finishing moment in thread order, or the
    /// first failure.
    func results() throws(Failure) -> [(output: Output, finished: ContinuousClock.Instant)] {
        condition.lock()
        while finished < count { condition.wait() }
        let all = outcomes
        condition.unlock()
        var results: [(output: Output, finished: ContinuousClock.Instant)] = []
        for outcome in all {
            switch outcome {
            case .done(let output, let instant): results.append((output, instant))
            case .failed(let reason): throw Failure(description: reason)
            case .skipped, nil: throw Failure(description: setUpFailure ?? "a thread did not run")
            }
        }
        return results
    }

    // MARK: Called on the team's threads

    /// Marks a thread ready (or failed to set up) and waits for ``release()``; whether to work.
    private func arrive(failure: String?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        ready += 1
        if let failure, setUpFailure == nil { setUpFailure = failure }
        condition.broadcast()
        while !released { condition.wait() }
        return setUpFailure == nil
    }

    private func finish(_ index: Int, _ outcome: Outcome) {
        condition.lock()
        outcomes[index] = outcome
        finished += 1
        condition.broadcast()
        condition.unlock()
    }
}

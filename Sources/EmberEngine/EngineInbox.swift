import Foundation
import Synchronization

/// The engine's one thread-safe part: work submitted from other threads, the interrupt request,
/// and the condition the engine sleeps on in real time, which either wakes.
final class EngineInbox: @unchecked Sendable {
    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var submissions: [@Sendable () -> Void] = []
    /// Whether submissions wait: read without the lock on every turn of the loop.
    private let hasMail = Atomic<Bool>(false)
    /// Whether an interrupt was requested: read without the lock.
    private let interruptFlag = Atomic<Bool>(false)

    /// Adds `work` and wakes the engine.
    func submit(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        submissions.append(work)
        hasMail.store(true, ordering: .releasing)
        condition.signal()
        condition.unlock()
    }

    /// Takes everything submitted so far, in order.
    func takeSubmissions() -> [@Sendable () -> Void] {
        guard hasMail.load(ordering: .acquiring) else { return [] }
        condition.lock()
        defer { condition.unlock() }
        guard !submissions.isEmpty else { return [] }
        let taken = submissions
        submissions = []
        hasMail.store(false, ordering: .releasing)
        return taken
    }

    /// Requests an interrupt and wakes the engine.
    func interrupt() {
        condition.lock()
        interruptFlag.store(true, ordering: .releasing)
        condition.signal()
        condition.unlock()
    }

    /// Whether an interrupt was requested (and not cleared).
    var isInterruptRequested: Bool { interruptFlag.load(ordering: .acquiring) }

    /// Forgets a requested interrupt.
    func clearInterrupt() {
        interruptFlag.store(false, ordering: .releasing)
    }

    /// Sleeps until `date`, or until work is submitted or an interrupt requested (at once if
    /// either is waiting already: both are checked under the lock their senders take).
    func sleep(until date: Date) {
        condition.lock()
        defer { condition.unlock() }
        while submissions.isEmpty && !isInterruptRequested {
            if !condition.wait(until: date) { break }
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
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
    /// A pipe whose read end is readable while submissions wait, once ``wakeDescriptor()``
    /// made it (-1 before); whether a byte is in it. Guarded by `condition`.
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    private var wakeSignalled = false
    /// Set by ``poke()`` to end the current sleep. Guarded by `condition`.
    private var poked = false

    /// Adds `work` and wakes the engine (unless `waking` is false: whoever runs the engine now
    /// takes it before letting go).
    func submit(_ work: @escaping @Sendable () -> Void, waking: Bool = true) {
        condition.lock()
        submissions.append(work)
        hasMail.store(true, ordering: .releasing)
        signalWake()
        if waking { condition.signal() }
        condition.unlock()
    }

    /// Whether submissions wait to run.
    var hasSubmissions: Bool { hasMail.load(ordering: .acquiring) }

    /// A descriptor that is readable while submitted work waits (made on first use, kept while
    /// the inbox lives): for a thread that polls for input between turns of the engine.
    func wakeDescriptor() -> Int32 {
        condition.lock()
        defer { condition.unlock() }
        if wakePipe.read < 0 {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { return -1 }
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
            wakePipe = (ends[0], ends[1])
            if !submissions.isEmpty { signalWake() }
        }
        return wakePipe.read
    }

    /// Puts a byte in the wake pipe, unless one is there. Under the lock.
    private func signalWake() {
        guard wakePipe.write >= 0, !wakeSignalled else { return }
        var byte: UInt8 = 1
        wakeSignalled = write(wakePipe.write, &byte, 1) == 1
    }

    deinit {
        if wakePipe.read >= 0 {
            close(wakePipe.read)
            close(wakePipe.write)
        }
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
        if wakeSignalled {
            var byte: UInt8 = 0
            _ = read(wakePipe.read, &byte, 1)
            wakeSignalled = false
        }
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

    /// Sleeps until `date`, or until work is submitted, an interrupt requested or ``poke()``
    /// called (at once if any is waiting already: all are checked under the lock their
    /// senders take).
    func sleep(until date: Date) {
        condition.lock()
        defer { condition.unlock() }
        while submissions.isEmpty && !isInterruptRequested && !poked {
            if !condition.wait(until: date) { break }
        }
        poked = false
    }

    /// Ends the current sleep (or the next one) without submitting anything.
    func poke() {
        condition.lock()
        poked = true
        condition.signal()
        condition.unlock()
    }
}

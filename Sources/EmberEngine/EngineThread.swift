import Foundation
import Synchronization

/// The real-time driver's run loop on a thread of its own: the engine runs there until
/// ``stop()``, sleeping when idle, and other threads hand it work with ``submit(_:)``,
/// ``run(_:)`` or ``perform(_:)``. What the network server stands on: its event loops never
/// touch the engine's state unless they hold the engine, they submit.
///
/// One lock says who runs the engine: its thread holds it while it works and lets go while it
/// sleeps. ``run(_:)`` takes it when it is free and runs the work on the caller's thread at
/// once (the engine's turn, then everything due, then the end of the tick), instead of waking
/// the engine's thread to do it: a message from a socket is handled on the event loop that read
/// it, with no thread hand-off, as a single-threaded server would. When the engine is busy,
/// ``run(_:)`` tries its lock a while (``spins``), then submits, and the order is the same
/// either way (what was submitted before runs first). If the work scheduled something sooner
/// than the sleeping thread meant to wake, the thread is woken.
///
/// ```swift
/// let thread = EngineThread(engine: Engine(clock: SystemClock()))
/// thread.start()
/// let answer = thread.perform { 6 * 7 }   // ran on the engine's thread
/// thread.stop()
/// ```
public final class EngineThread: Sendable {
    /// The engine it runs.
    public let engine: Engine
    private let state = ThreadState()
    /// Held by whoever runs the engine: its thread, or a caller of ``run(_:)``.
    private let turns = NSLock()
    /// When the sleeping thread wakes by itself (milliseconds; `Int64.max`: when woken).
    /// Written under `turns`.
    private let sleepsUntil = Atomic<Int64>(.max)

    /// A run loop for `engine` (not started).
    public init(engine: Engine) {
        self.engine = engine
    }

    /// Starts the thread. Calling it twice does nothing.
    public func start() {
        guard state.begin() else { return }
        let engine = engine
        let state = state
        let turns = turns
        // Declared before the thread starts, so that a turn with nothing scheduled sleeps.
        engine.submit { engine.addExternalSource() }
        engine.confine()
        let thread = Thread { [self] in
            while !state.stopRequested {
                turns.lock()
                engine.hold()
                let target = engine.runUntilIdle()
                sleepsUntil.store(target ?? .max, ordering: .releasing)
                engine.release()
                turns.unlock()
                if state.stopRequested { break }
                engine.sleep(until: target)
            }
            turns.lock()
            engine.hold()
            engine.removeExternalSource()
            engine.endTick()
            engine.release()
            turns.unlock()
            // Stopped: the engine is its owner's again, whatever thread that is.
            engine.unconfine()
            state.finished()
        }
        thread.name = "ember-engine"
        thread.start()
    }

    /// Runs `work` on the engine's thread, in order with other submissions. Any thread.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        engine.submit(work)
    }

    /// Runs `work` at once on the calling thread when the engine is idle (nobody runs it: the
    /// caller takes the engine's lock), else submits it (``submit(_:)``); in order with other
    /// submissions either way. Any thread; from inside the engine's own work it submits.
    public func run(_ work: @escaping @Sendable () -> Void) {
        guard state.isLive else {
            engine.submit(work)
            return
        }
        guard takeTurn() else {
            // Whoever holds the engine takes it before letting go (the engine's thread looks for
            // submissions before it sleeps; a caller of run, below, before it returns): no need
            // to wake the thread.
            engine.submitQuietly(work)
            return
        }
        engine.hold()
        var target = engine.runNow(work)
        while true {
            if let due = target, due < sleepsUntil.load(ordering: .acquiring) {
                sleepsUntil.store(due, ordering: .releasing)
                engine.wake()
            }
            engine.release()
            turns.unlock()
            // What was submitted quietly while this ran: taken here, unless someone else holds
            // the engine now (they will take it).
            guard engine.hasSubmissions, turns.try() else { return }
            engine.hold()
            target = engine.runUntilIdle()
        }
    }

    /// How many times ``run(_:)`` tries the engine's lock before it hands its work to whoever
    /// holds it: an engine turn of a few messages lasts microseconds, and a caller that waits
    /// that long runs its own work and writes its own answers, where one that hands it over has
    /// the holder do its work too and then wake it (another thread) to write them.
    static let spins = 256

    /// Takes the engine's lock, trying for a while (``spins``) when another thread holds it.
    private func takeTurn() -> Bool {
        for _ in 0..<Self.spins {
            if turns.try() { return true }
        }
        return false
    }

    /// Runs `body` on the engine's thread and returns its result, blocking the calling thread
    /// until then. Never call it from the engine's own thread (it would wait for itself).
    public func perform<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ResultSlot<T>()
        engine.submit { box.fill(body()) }
        return box.take()
    }

    /// Stops the loop after the work submitted before, ends the tick, and waits for the thread
    /// to finish. Any thread but the engine's.
    public func stop() {
        guard state.isRunning else { return }
        engine.submit { [state] in state.requestStop() }
        state.waitUntilFinished()
    }
}

/// The run loop's state, shared between the engine's thread and its owners.
private final class ThreadState: @unchecked Sendable {
    private let condition = NSCondition()
    private var started = false
    /// Read by the engine's thread on every turn: an atomic, not the lock.
    private let stopping = Atomic<Bool>(false)
    /// Started and not asked to stop: ``EngineThread/run(_:)`` may run work at once.
    private let live = Atomic<Bool>(false)
    private var done = false

    /// Marks the thread started; `false` if it already was.
    func begin() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if started { return false }
        started = true
        live.store(true, ordering: .releasing)
        return true
    }

    var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return started && !done
    }

    var stopRequested: Bool { stopping.load(ordering: .acquiring) }

    var isLive: Bool { live.load(ordering: .acquiring) }

    func requestStop() {
        live.store(false, ordering: .releasing)
        stopping.store(true, ordering: .releasing)
    }

    func finished() {
        condition.lock()
        done = true
        condition.broadcast()
        condition.unlock()
    }

    func waitUntilFinished() {
        condition.lock()
        while !done { condition.wait() }
        condition.unlock()
    }
}

/// A value one thread fills and another takes, blocking until it is there.
private final class ResultSlot<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: T?

    func fill(_ newValue: T) {
        condition.lock()
        value = newValue
        condition.signal()
        condition.unlock()
    }

    func take() -> T {
        condition.lock()
        defer { condition.unlock() }
        while value == nil { condition.wait() }
        return value!
    }
}

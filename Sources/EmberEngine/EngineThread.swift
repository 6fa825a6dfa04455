import Foundation
import Synchronization

/// The real-time driver's run loop on a thread of its own: the engine runs there until
/// ``stop()``, sleeping when idle, and other threads hand it work with ``submit(_:)`` or
/// ``perform(_:)``. What the network server stands on: its event loops never touch the engine's
/// state, they submit.
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

    /// A run loop for `engine` (not started).
    public init(engine: Engine) {
        self.engine = engine
    }

    /// Starts the thread. Calling it twice does nothing.
    public func start() {
        guard state.begin() else { return }
        let engine = engine
        let state = state
        // Declared before the thread starts, so that the first wait sleeps instead of ending.
        engine.submit { engine.addExternalSource() }
        let thread = Thread {
            while !state.stopRequested {
                _ = engine.wait(until: { state.stopRequested })
            }
            engine.removeExternalSource()
            engine.endTick()
            state.finished()
        }
        thread.name = "ember-engine"
        thread.start()
    }

    /// Runs `work` on the engine's thread, in order with other submissions. Any thread.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        engine.submit(work)
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
    private var done = false

    /// Marks the thread started; `false` if it already was.
    func begin() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if started { return false }
        started = true
        return true
    }

    var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return started && !done
    }

    var stopRequested: Bool { stopping.load(ordering: .acquiring) }

    func requestStop() { stopping.store(true, ordering: .releasing) }

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

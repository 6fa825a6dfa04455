import DequeModule
import EmberCore
import Foundation
import Synchronization

/// The one engine that runs an embedded Ember: it owns the clock, the time-ordered queue of
/// messages and timers, the end of each tick (the stores' commits), interruption, and the
/// delivery of callbacks. Nothing else runs the loop: every wait, anywhere, is
/// ``wait(until:deadline:)`` (or its `async` twin), which returns a typed ``WaitOutcome``.
///
/// One turn of the loop, repeated until the wait is over:
/// 1. work submitted from other threads (``submit(_:)``) runs, in order;
/// 2. posted callbacks (``post(_:)``: listener events, completions) run, in order, including
///    those they post in turn; they may schedule work but not wait (`.reentrant`);
/// 3. one posted task (``postTask(_:)``: a Lua callback) runs, unless one is already running; a
///    task may wait, and while it does, other tasks stay queued;
/// 4. the wait is over if its condition holds and no tick work is pending;
/// 5. one message or timer that is due runs (an *operation*: it never runs callbacks itself);
/// 6. when nothing is due, the tick ends: each ``TickParticipant`` commits;
/// 7. when nothing is left now, time passes: the virtual-time driver moves the clock to the next
///    item (or the deadline), the real-time driver sleeps until then, or until another thread
///    submits work or interrupts. With nothing scheduled, no deadline and nothing outside that
///    could submit work, the wait is `.wouldWaitForever`.
///
/// Confinement: the engine and everything it drives belong to the thread running its loop.
/// ``submit(_:)``, ``interrupt()`` and ``isInterruptPending`` are the thread-safe entries;
/// ``EngineThread`` runs the loop on a thread of its own for callers on other threads.
///
/// ```swift
/// let engine = Engine(clock: ManualClock())
/// engine.schedule(after: 60_000) { print("a minute later") }
/// engine.wait(until: { false }, deadline: engine.now + 60_000)   // .timedOut, no real time spent
/// ```
public final class Engine: @unchecked Sendable {
    /// How time passes.
    public let driver: EngineDriver
    /// The clock everything on this engine reads.
    public let clock: any DatabaseClock
    /// Whether the process's Ctrl-C (``InterruptSignal``) interrupts waits.
    public let observesInterruptSignal: Bool

    /// The messages and timers. Its accesses skip the runtime's dynamic exclusivity checks: they
    /// never overlap (an item runs only after it is popped), and every message passes through
    /// here twice.
    @exclusivity(unchecked) private var queue = WorkQueue()
    // The loop's state is read on every turn; its accesses never overlap (a callback runs after
    // it is popped), so they skip the runtime's dynamic exclusivity checks.
    @exclusivity(unchecked) private var callbacks: Deque<() -> Void> = []
    @exclusivity(unchecked) private var tasks: Deque<() -> Void> = []
    @exclusivity(unchecked) private var participants: [WeakParticipant] = []
    @exclusivity(unchecked) private var phase: Phase = .idle
    @exclusivity(unchecked) private var runningTask = false
    private var externalSources = 0
    @exclusivity(unchecked) private var remoteMessages = 0
    private let inbox = EngineInbox()
    /// In debug builds, the thread that holds an engine an ``EngineThread`` runs (0: nobody,
    /// or an engine no thread confines), checked by the entries that touch the engine's state
    /// (``checkHeld()``), as swift-nio's `NIOLoopBound` checks its event loop.
    private let holder = Atomic<UInt>(0)
    /// Whether an ``EngineThread`` runs this engine: only then is the holder checked (an
    /// embedded engine belongs to whoever drives it, and an `async` wait may resume elsewhere).
    private let confined = Atomic<Bool>(false)

    /// What the engine is doing on its thread.
    private enum Phase {
        /// Waiting, or not running: a wait may start.
        case idle
        /// Running a message or a timer.
        case operation
        /// Running posted callbacks.
        case callback
    }

    /// A participant, not retained: participants own the engine, not the other way round, and
    /// remove themselves (``remove(_:)``) before they go. A weak reference would cost an atomic
    /// load on every turn of the loop.
    private struct WeakParticipant {
        unowned(unsafe) let value: any TickParticipant
    }

    /// An engine driven by `driver`.
    public init(driver: EngineDriver, observesInterruptSignal: Bool = false) {
        self.driver = driver
        clock = driver.clock
        self.observesInterruptSignal = observesInterruptSignal
    }

    /// An engine in virtual time on a ``ManualClock``, in real time on any other clock.
    public convenience init(clock: any DatabaseClock, observesInterruptSignal: Bool = false) {
        self.init(driver: .for(clock), observesInterruptSignal: observesInterruptSignal)
    }

    /// Whether the engine runs in virtual time.
    public var isVirtualTime: Bool {
        if case .virtualTime = driver { return true }
        return false
    }

    /// The clock's time, in milliseconds since 1970.
    public var now: Int64 { clock.now() }

    // MARK: Confinement

    /// Marks the engine as run by an ``EngineThread``: from now on, in debug builds, its state
    /// is touched only by the thread that holds it (``hold()``).
    func confine() {
        confined.store(true, ordering: .releasing)
    }

    /// The ``EngineThread`` stopped: the engine belongs to whoever drives it again.
    func unconfine() {
        confined.store(false, ordering: .releasing)
    }

    /// The calling thread holds the engine (it took the ``EngineThread``'s lock).
    func hold() {
        #if DEBUG
        holder.store(Self.currentThread, ordering: .releasing)
        #endif
    }

    /// The calling thread lets the engine go (before it unlocks the ``EngineThread``'s lock).
    func release() {
        #if DEBUG
        holder.store(0, ordering: .releasing)
        #endif
    }

    /// In debug builds, stops the process when a thread that does not hold the engine touches
    /// its state: the engine and everything it drives belong to the thread running its loop.
    /// Nothing in release builds.
    @inline(__always)
    func checkHeld(_ function: StaticString = #function) {
        #if DEBUG
        guard confined.load(ordering: .acquiring) else { return }
        let current = Self.currentThread
        let owner = holder.load(ordering: .acquiring)
        precondition(
            owner == current,
            "Engine.\(function) on a thread that does not hold the engine (thread \(current), holder \(owner)): submit the work (EngineThread.submit, run or perform)")
        #endif
    }

    private static var currentThread: UInt {
        #if os(Linux)
        UInt(pthread_self())
        #else
        UInt(bitPattern: pthread_self())
        #endif
    }

    // MARK: Scheduling

    /// Schedules `action` at `time` (after everything scheduled earlier for the same time).
    /// - Complexity: O(log m) for m scheduled items.
    public func schedule(at time: Int64, _ kind: WorkKind = .timer, _ action: @escaping () -> Void) {
        checkHeld()
        queue.push(at: time, kind: kind, action)
    }

    /// Schedules `action` `milliseconds` from now.
    /// - Complexity: O(log m) for m scheduled items.
    public func schedule(after milliseconds: Int64, _ kind: WorkKind = .timer, _ action: @escaping () -> Void) {
        checkHeld()
        queue.push(at: clock.now() + milliseconds, kind: kind, action)
    }

    /// How many messages are in flight: scheduled messages, and those travelling outside the
    /// engine (``addMessagesInFlight(_:)``).
    public var messagesInFlight: Int { queue.messages + remoteMessages }

    /// Counts `count` more (or, negative, fewer) messages as in flight outside the engine: the
    /// requests a connection to a server in another process has sent and not yet had answered,
    /// so that a wait for every answer (``messagesInFlight`` reaching 0) waits for them too.
    public func addMessagesInFlight(_ count: Int) {
        checkHeld()
        remoteMessages = max(0, remoteMessages + count)
    }

    /// How many items are scheduled, due or not.
    public var scheduledCount: Int { queue.count }

    /// When the next scheduled item is due, if any.
    public var nextDueTime: Int64? { queue.nextTime }

    // MARK: Callbacks

    /// Posts `callback` (a listener event, a completion) to run as soon as the current operation
    /// or callback is over: never inside an operation, never inside another callback.
    public func post(_ callback: @escaping () -> Void) {
        checkHeld()
        callbacks.append(callback)
    }

    /// Runs the posted callbacks now, in order (and those they post), if the caller is outside
    /// the engine's own work: how a public operation called from the caller's code delivers its
    /// local events once it is over and before it returns. Inside an operation or a callback it
    /// does nothing: the callbacks run when that is over.
    public func deliverPosted() {
        checkHeld()
        guard phase == .idle, !callbacks.isEmpty else { return }
        runCallbacks()
    }

    /// Posts `task`: a callback that may itself wait (a Lua callback running as a coroutine).
    /// Tasks run one at a time, in order, from the loop of a wait that is not inside a task.
    public func postTask(_ task: @escaping () -> Void) {
        checkHeld()
        tasks.append(task)
    }

    /// Whether callbacks wait that a wait from here would deliver: posted callbacks, or tasks
    /// when no task is running. (Always false when a wait's condition is checked: a turn runs
    /// them first.)
    public var hasDeliverableCallbacks: Bool { !callbacks.isEmpty || (!tasks.isEmpty && !runningTask) }

    /// Whether a task is running (or waiting).
    public var isRunningTask: Bool { runningTask }

    // MARK: Ticks

    /// Adds `participant`, asked to end its tick after those added before it. Not retained: a
    /// participant removes itself (``remove(_:)``) before it is deallocated.
    public func add(_ participant: any TickParticipant) {
        participants.append(WeakParticipant(value: participant))
    }

    /// Removes `participant`.
    public func remove(_ participant: any TickParticipant) {
        participants.removeAll { $0.value === participant }
    }

    /// Whether a participant has work waiting for the end of the tick.
    public var isTickPending: Bool {
        participants.contains { $0.value.hasTickWork }
    }

    /// Ends the tick now: every participant commits, in order.
    public func endTick() {
        for participant in participants { participant.value.endTick() }
    }

    // MARK: Other threads

    /// Submits `work` from any thread: it runs on the engine's thread, in order of submission,
    /// at the start of the loop's next turn (waking a sleeping engine).
    public func submit(_ work: @escaping @Sendable () -> Void) {
        inbox.submit(work)
    }

    /// Declares a source outside the engine (another thread, a network listener) that may still
    /// submit work: while any is declared, a wait with nothing scheduled sleeps instead of
    /// reporting `.wouldWaitForever`.
    public func addExternalSource() { externalSources += 1 }

    /// Ends what ``addExternalSource()`` declared.
    public func removeExternalSource() { externalSources = max(0, externalSources - 1) }

    /// A file descriptor that is readable while work submitted from other threads waits to
    /// run: a caller that polls for input (the REPL) polls it too, and runs the engine when it
    /// is readable. Made on first use; until then, submitting costs no system call.
    public var wakeDescriptor: Int32 { inbox.wakeDescriptor() }

    // MARK: Interruption

    /// Interrupts the current wait (or the next one), from any thread.
    public func interrupt() { inbox.interrupt() }

    /// Whether an interrupt waits to stop a wait. Any thread.
    public var isInterruptPending: Bool {
        inbox.isInterruptRequested || (observesInterruptSignal && InterruptSignal.isPending)
    }

    /// Forgets a pending interrupt (the one a wait reported, or Ctrl-C at a prompt).
    public func clearInterrupt() {
        inbox.clearInterrupt()
        if observesInterruptSignal { InterruptSignal.clear() }
    }

    // MARK: Waiting

    /// Runs the loop until `condition` holds (with the tick ended), or the clock reaches
    /// `deadline`.
    /// - Returns: `.satisfied`; `.timedOut` at the deadline; `.interrupted` (the interrupt is
    ///   consumed); `.wouldWaitForever` when nothing left can make it hold; `.reentrant` inside
    ///   the engine's own work.
    @discardableResult
    public func wait(until condition: () -> Bool, deadline: Int64? = nil) -> WaitOutcome {
        checkHeld()
        if phase != .idle { return .reentrant }
        while true {
            switch turn(condition, deadline: deadline) {
            case .done(let outcome): return outcome
            case .worked: continue
            case .idle(let target): sleep(until: target)
            }
        }
    }

    /// Runs the loop until `pending` has its answer (see ``wait(until:deadline:)``); on
    /// `.satisfied`, `pending.value` holds it.
    @discardableResult
    public func wait<Answer>(for pending: Pending<Answer>, deadline: Int64? = nil) -> WaitOutcome {
        wait(until: { pending.isFilled }, deadline: deadline)
    }

    /// Runs the loop until `condition` holds, yielding to other tasks now and then and sleeping
    /// (not blocking) in real time. A cancelled task's wait ends `.interrupted`.
    nonisolated(nonsending) public func wait(until condition: () -> Bool, deadline: Int64? = nil) async -> WaitOutcome {
        if phase != .idle { return .reentrant }
        var turns = 0
        while true {
            if Task.isCancelled { return .interrupted }
            switch turn(condition, deadline: deadline) {
            case .done(let outcome): return outcome
            case .worked:
                turns += 1
                if turns % 1024 == 0 { await Task.yield() }
            case .idle(let target):
                if case .virtualTime(let manual) = driver, let target {
                    manual.advance(to: target)
                } else {
                    let delay = target.map { $0 - clock.now() } ?? 50
                    try? await Task.sleep(for: .milliseconds(max(0, min(delay, 50))))
                }
            }
        }
    }

    /// Runs everything due now (callbacks, tasks, messages and timers due, what they cause) and
    /// ends the tick, without letting time pass: what the REPL runs while idle at its prompt.
    @discardableResult
    public func runDue() -> WaitOutcome {
        let now = clock.now()
        let outcome = wait(until: { self.queue.nextTime.map { $0 > now } ?? true }, deadline: now)
        return outcome == .timedOut ? .satisfied : outcome
    }

    /// Runs the next piece of work that is due now, if any (a submission, the posted callbacks,
    /// a task, a message or timer, the end of a tick), without letting time pass: the engine
    /// single-stepped, one message at a time (faults injected between messages; the fault and
    /// network tests step it so).
    /// - Returns: whether something ran.
    @discardableResult
    public func step() -> Bool {
        checkHeld()
        guard phase == .idle else { return false }
        if case .worked = turn({ false }, deadline: clock.now()) { return true }
        return false
    }

    /// Lets `milliseconds` pass (virtual time: at once), running everything due meanwhile and at
    /// the end, in order.
    @discardableResult
    public func advance(by milliseconds: Int64) -> WaitOutcome {
        let outcome = wait(until: { false }, deadline: clock.now() + milliseconds)
        guard outcome == .timedOut else { return outcome }
        return runDue()
    }

    // MARK: Drivers that sleep themselves

    /// Runs turns until nothing is due now (callbacks, tasks, messages and timers due, the end
    /// of the tick), without letting time pass, and says when something is next due: for a
    /// driver that sleeps itself (``EngineThread``). An interrupt is forgotten (nothing waits
    /// for it here).
    /// - Returns: when the next scheduled item is due; `nil` when none is.
    /// - Precondition: not inside the engine's own work.
    public func runUntilIdle() -> Int64? {
        precondition(phase == .idle, "runUntilIdle inside the engine's own work")
        while true {
            switch turn({ false }, deadline: nil) {
            case .worked: continue
            case .idle(let target): return target
            case .done(.interrupted): continue
            case .done: return queue.nextTime
            }
        }
    }

    /// Runs what was submitted before, then `work` as an operation, then everything due, on the
    /// calling thread: a driver's way of running a submission at once when the engine is idle
    /// and the caller holds the driver's lock (``EngineThread/run(_:)``), instead of waking the
    /// engine's thread. The order is the same as ``submit(_:)``'s.
    /// - Returns: when the next scheduled item is due; `nil` when none is.
    public func runNow(_ work: () -> Void) -> Int64? {
        precondition(phase == .idle, "runNow inside the engine's own work")
        let submissions = inbox.takeSubmissions()
        operation {
            for earlier in submissions { earlier() }
            work()
        }
        return runUntilIdle()
    }

    /// Runs the work other threads submitted (another process's requests through a socket) and
    /// ends the tick it made, and nothing else: no message, timer, callback or task of this
    /// engine's own runs. What a long script lets happen between its instructions, so that
    /// others never wait for it to end, while the script sees no event it did not wait for.
    /// Does nothing inside the engine's own work (an operation or callbacks, where a wait is not
    /// allowed either) or when nothing was submitted.
    /// - Complexity: one atomic load when nothing was submitted.
    public func serveSubmissions() {
        guard inbox.hasSubmissions, phase == .idle else { return }
        checkHeld()
        let submissions = inbox.takeSubmissions()
        operation { for work in submissions { work() } }
        if isTickPending { operation(endTick) }
    }

    /// Submits `work` without waking the engine's thread: for a driver whose lock is held by
    /// someone who checks for submissions before letting go of it (``EngineThread/run(_:)``).
    /// Any thread.
    public func submitQuietly(_ work: @escaping @Sendable () -> Void) {
        inbox.submit(work, waking: false)
    }

    /// Whether work submitted from other threads waits to run. Any thread.
    public var hasSubmissions: Bool { inbox.hasSubmissions }

    /// Ends a driver's ``sleep(until:)`` early (something it did not know of is due sooner). Any
    /// thread.
    public func wake() { inbox.poke() }

    // MARK: The loop

    /// What one turn of the loop came to.
    private enum Turn {
        case done(WaitOutcome)
        case worked
        /// Nothing to do before `target` (the next item or the deadline; `nil`: until woken).
        case idle(until: Int64?)
    }

    /// One turn of the loop (see the type's documentation).
    private func turn(_ condition: () -> Bool, deadline: Int64?) -> Turn {
        let submissions = inbox.takeSubmissions()
        if !submissions.isEmpty {
            operation { for work in submissions { work() } }
            return .worked
        }
        if !callbacks.isEmpty {
            runCallbacks()
            return .worked
        }
        if !runningTask, let task = tasks.popFirst() {
            runningTask = true
            task()
            runningTask = false
            return .worked
        }
        if condition() && !isTickPending { return .done(.satisfied) }
        if isInterruptPending {
            clearInterrupt()
            return .done(.interrupted)
        }
        if let item = queue.popDue(now: clock.now()) {
            operation(item.action)
            return .worked
        }
        if isTickPending {
            operation(endTick)
            return .worked
        }
        if let deadline, clock.now() >= deadline { return .done(.timedOut) }
        let target = switch (queue.nextTime, deadline) {
        case let (next?, deadline?): min(next, deadline)
        case let (next, deadline): next ?? deadline
        }
        if target == nil && externalSources == 0 { return .done(.wouldWaitForever) }
        return .idle(until: target)
    }

    /// Runs `body` as an operation: a wait inside it is `.reentrant`, callbacks it posts wait.
    private func operation(_ body: () -> Void) {
        phase = .operation
        body()
        phase = .idle
    }

    /// Runs the posted callbacks, in order, including those they post.
    private func runCallbacks() {
        phase = .callback
        while let callback = callbacks.popFirst() { callback() }
        phase = .idle
    }

    /// Lets time pass until `target` (milliseconds since 1970): virtual time moves the clock
    /// there; real time sleeps (at most a second, a tenth with Ctrl-C observed) until then, or
    /// until work is submitted, an interrupt is requested or ``wake()`` is called. The loop's
    /// own sleep, and a driver's that runs turns itself (``runUntilIdle()``).
    public func sleep(until target: Int64?) {
        if case .virtualTime(let manual) = driver, let target {
            manual.advance(to: target)
            return
        }
        // Real time (or virtual time waiting for another thread). A signal does not wake the
        // condition: with Ctrl-C observed, sleep a tenth of a second at a time.
        let limit: Int64 = observesInterruptSignal ? 100 : 1_000
        let delay = max(0, min(target.map { $0 - clock.now() } ?? limit, limit))
        guard delay > 0 else { return }
        inbox.sleep(until: Date().addingTimeInterval(Double(delay) / 1000))
    }
}

import EmberClient
import EmberCore
import EmberEngine
import EmberInstance

/// Lua scripting over an embedded Ember: the bindings of LUA.md (`db`, `ember.*`, references,
/// queries, snapshots, transactions, onDisconnect), the sandbox, and the scheduler that runs
/// scripts as coroutines.
///
/// Every script, REPL chunk, listener callback and plugin command runs in a coroutine of its
/// own. A call that waits (`get`, `once`, `transaction`, `h:wait`, `ember.sleep`,
/// `ember.flush`) yields from the C trampoline, never from Swift; the runtime then runs the
/// engine until the wait is over, delivering listener callbacks meanwhile, and resumes the
/// coroutine. Callbacks run one at a time, never inside another callback: those that arrive
/// while a callback runs (or waits) are queued.
///
/// ```swift
/// let runtime = try LuaRuntime(ember: ember, host: shell)
/// let values = try runtime.run("db:ref('x'):set(1):wait() return db:ref('x'):get():val()",
///                              name: "=lua", in: .session)   // [.json(1)]
/// ```
///
/// Confined to one thread, like the `Ember` it drives.
public final class LuaRuntime {
    /// The Lua state.
    public let lua: LuaState
    /// The instance scripts drive.
    public let ember: Ember
    /// The shell (or another embedder); without one, `db` is the client "main" and
    /// `ember.exec`/`ember.command` fail.
    public weak var host: (any LuaHost)?

    /// The waits coroutines are suspended on, by ticket.
    var waits: [Int: LuaWait] = [:]
    /// The ticket the next wait gets.
    var nextTicket = 1
    /// The wait the coroutine that just yielded asked for (set by the binding before it yields).
    var yieldedTicket: Int?
    /// The listeners scripts added.
    var listeners: [LuaListener] = []
    /// The commands scripts added, in order.
    public internal(set) var commands: [LuaCommand] = []
    /// The plugin being loaded (its file name), for the commands it adds.
    var loadingPlugin: String?
    /// What runs now and then while Lua code runs (about every 64,000 VM instructions, from
    /// the count hook): the host's chance to serve what must not wait for a long script, such as
    /// another process's reads through the local socket. It must not run Lua or wait.
    public var service: (() -> Void)?
    /// Registry references: the function that makes a script environment, the session's
    /// environment.
    var newEnvironment: Int32 = LuaState.noReference
    var sessionEnvironment: Int32 = LuaState.noReference

    /// Creates the state with `configuration`'s libraries and limits, the bindings and the
    /// sandbox.
    /// - Throws: ``LuaError`` of kind `.setup` when the state cannot be built.
    public init(ember: Ember, configuration: LuaConfiguration = LuaConfiguration(), host: (any LuaHost)? = nil) throws(LuaError) {
        self.ember = ember
        self.host = host
        lua = try LuaState(configuration: configuration)
        lua.releasesObjectsWhenCollected()
        lua.setContinuation { [unowned self] thread, ticket in self.finishWait(ticket: ticket, on: thread) }
        lua.setService { [unowned self] in self.service?() }
        try defineTypes()
        try installEmberTable()
        try runPrelude()
    }

    /// Detaches the bindings before the state closes: the state (and the finalizers it runs when
    /// it closes, now or later if someone else holds it) can outlive the runtime, so from here on
    /// a binding raises "the Lua session has ended" instead of reaching the runtime, and a wait
    /// cannot resume.
    deinit {
        for case let binding as LuaBindingBox in lua.callables { binding.detach() }
        lua.setContinuation(nil)
        lua.setService(nil)
        for listener in listeners where listener.isActive {
            if let handle = listener.handle { listener.database.removeObserver(handle) }
        }
    }

    /// The client `db` names: the host's current client, or "main".
    var currentDatabase: Database { host?.currentDatabase ?? ember.client(.main) }

    /// The engine that runs the instance: scripts wait through it, callbacks are its tasks.
    var engine: Engine { ember.engine }

    /// How many listeners scripts have on.
    public var listenerCount: Int { listeners.count }

    // MARK: registry

    /// Anchors the value at `index` of `thread` in the registry and returns the reference
    /// (``LuaState/noReference`` when out of memory).
    func anchor(valueAt index: Int32, in thread: LuaState.Thread) -> Int32 {
        thread.reference(toValueAt: index)
    }

    /// Releases a registry reference.
    func release(_ reference: Int32) {
        lua.releaseReference(reference)
    }

    // MARK: waits

    /// Registers `wait` for the coroutine about to yield and returns what the binding returns.
    func suspend(_ call: LuaCall, on wait: LuaWait) -> LuaCallResult {
        wait.name = call.name
        wait.isMethod = call.isMethod
        let ticket = nextTicket
        nextTicket += 1
        waits[ticket] = wait
        yieldedTicket = ticket
        return .await(ticket: ticket)
    }

    /// What a binding that queued callbacks returns: its `count` results after the callbacks
    /// ran (when the caller can wait), or at once.
    func deliveringFirst(_ count: Int32, on thread: LuaState.Thread) -> LuaCallResult {
        guard engine.hasDeliverableCallbacks, !engine.isRunningTask, thread.canWait else { return .values(count) }
        yieldedTicket = nil
        return .valuesAfterDelivery(count)
    }

    /// Pushes the results of the wait `ticket` onto the resumed coroutine's stack.
    func finishWait(ticket: Int, on thread: LuaState.Thread) -> LuaState.CallStatus {
        guard let wait = waits.removeValue(forKey: ticket) else {
            thread.push(errorCode: ErrorCode.internalError, message: "ember: a wait was lost")
            return .error
        }
        let call = LuaCall(thread: thread, runtime: self, name: wait.name, isMethod: wait.isMethod)
        do {
            return try LuaBindingBox.status(of: wait.finish(call, wait.outcome ?? .ready))
        } catch {
            thread.push(error: error)
            return .error
        }
    }

    /// Whether an interrupt (Ctrl-C, or ``LuaState/requestInterrupt()``) is pending.
    var interruptPending: Bool { lua.interruptPending }

    /// Waits on the engine until `wait` is over (the engine delivers callbacks meanwhile).
    /// - Throws: ``LuaError`` of kind `.interrupted` on Ctrl-C or an interrupt request.
    func wait(for wait: LuaWait) throws(LuaError) {
        let outcome = engine.wait(until: { wait.isReady() || self.interruptPending }, deadline: wait.deadline)
        if wait.isReady() {
            wait.outcome = .ready
            return
        }
        switch outcome {
        case .satisfied, .interrupted:
            throw LuaError(.interrupted, message: "interrupted while waiting")
        case .timedOut:
            wait.outcome = .timedOut
        case .wouldWaitForever, .reentrant:
            wait.outcome = .failed(outcome.error ?? .other(code: ErrorCode.internalError, message: "the wait failed"))
        }
    }

    /// Lets the callbacks that are due run (a plain yield of a script: a write's local events):
    /// a wait that holds at once, since every turn of the engine delivers them first.
    /// - Throws: ``LuaError`` of kind `.interrupted` on Ctrl-C.
    func deliverCallbacks() throws(LuaError) {
        if engine.wait(until: { true }) == .interrupted {
            throw LuaError(.interrupted, message: "interrupted")
        }
    }

    // MARK: callbacks

    /// Posts `callback` to the engine as a task: it runs between commands or while a script
    /// waits, one callback at a time, never inside another.
    func enqueue(_ callback: LuaCallback) {
        engine.postTask { [weak self] in self?.run(callback) }
    }

    /// Runs one callback in a coroutine of its own. Errors are reported to the host with their
    /// traceback.
    private func run(_ callback: LuaCallback) {
        defer { if callback.releasesFunction { release(callback.function) } }
        if let listener = callback.listener, !listener.isActive { return }
        do {
            _ = try runThread(name: callback.context) { call throws(LuaBindingError) in
                call.push(registryReference: callback.function)
                for argument in callback.arguments {
                    switch argument {
                    case .snapshot(let snapshot): call.push(snapshot)
                    case .string(let text): call.push(text)
                    case .boolean(let flag): call.push(flag)
                    case .error(let error): call.push(error: error)
                    }
                }
                return Int32(callback.arguments.count)
            }
        } catch {
            if error.kind == .interrupted { lua.clearInterrupt() }
            host?.report(error, context: callback.context)
        }
    }
}

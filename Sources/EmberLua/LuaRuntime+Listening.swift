import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberSync

/// Reading and listening: `get`, `once`, `on`, `off`, and listener handles.
extension LuaRuntime {
    /// `query:get()`: the server's value when connected, the cache's offline.
    func get(_ call: LuaCall) throws(LuaBindingError) -> LuaCallResult {
        let query = try call.query(at: 1)
        try call.requireWaiting()
        let answer = Pending<Result<DataSnapshot, DatabaseError>>()
        query.getData(answer.filler)
        return suspend(call, on: LuaWait(isReady: { answer.isFilled }) { call, outcome throws(LuaBindingError) in
            if case .failed(let error) = outcome { throw call.failure(error) }
            switch answer.value! {
            case .success(let snapshot): call.push(snapshot)
            case .failure(let error): throw call.failure(error)
            }
            return .values(1)
        })
    }

    /// `query:once([event])`: the first event's snapshot (and previous key).
    func once(_ call: LuaCall) throws(LuaBindingError) -> LuaCallResult {
        let query = try call.query(at: 1)
        let type = call.isAbsent(2) ? EventType.value : try call.eventType(at: 2)
        try call.requireWaiting()
        let answer = Pending<Result<(DataSnapshot, String?), DatabaseError>>()
        query.observeOnce(type, answer.filler)
        return suspend(call, on: LuaWait(isReady: { answer.isFilled }) { call, outcome throws(LuaBindingError) in
            if case .failed(let error) = outcome { throw call.failure(error) }
            switch answer.value! {
            case .success(let (snapshot, previous)):
                call.push(snapshot)
                call.push(previous)
            case .failure(let error): throw call.failure(error)
            }
            return .values(2)
        })
    }

    /// `query:on(event, function(snap, prevKey) ... end [, function(err) ... end])`: a listener;
    /// its handle. The optional last function is called once, with the error, if the server
    /// cancels the listen (the rules do not allow it, or no longer do); without it, the
    /// cancellation is reported as an error of the listener.
    func on(_ call: LuaCall) throws(LuaBindingError) -> LuaCallResult {
        let query = try call.query(at: 1)
        let type = try call.eventType(at: 2)
        if !call.isAbsent(4) && call.type(at: 4) != .function {
            throw call.wrongType(at: 4, expected: "a function called if the listen is cancelled")
        }
        let function = try call.function(at: 3)
        let cancel = call.isAbsent(4) ? nil : try call.function(at: 4)
        let listener = LuaListener(database: query.database, spec: query.spec, eventType: type, function: function, cancelFunction: cancel)
        listeners.append(listener)
        listener.handle = query.observe([type]) { [weak self, weak listener] event in
            guard let self, let listener, listener.isActive else { return }
            switch event {
            case .data(_, let snapshot, let previous):
                let arguments: [LuaCallback.Argument] = type == .value ? [.snapshot(snapshot)] : [.snapshot(snapshot), .string(previous)]
                self.enqueue(LuaCallback(
                    function: listener.function, releasesFunction: false, arguments: arguments,
                    context: listener.context, listener: listener))
            case .cancelled(let error):
                if let cancel = listener.cancelFunction {
                    listener.cancelFunction = nil
                    self.remove(listener)
                    self.enqueue(LuaCallback(
                        function: cancel, releasesFunction: true, arguments: [.error(error)], context: listener.context, listener: nil))
                    return
                }
                self.remove(listener)
                self.host?.report(
                    LuaError(.runtime, message: "the listen was cancelled: \(error.message)", code: error.code), context: listener.context)
            }
        }
        call.push(object: listener, as: .listener)
        return deliveringFirst(1, on: call.thread)
    }

    /// `query:off([handle | event])`: removes one listener, those of one event, or all of them
    /// (on a reference, those of every query at its location).
    func off(_ call: LuaCall) throws(LuaBindingError) -> LuaCallResult {
        let query = try call.query(at: 1)
        if let listener = call.object(.listener, at: 2, as: LuaListener.self) {
            remove(listener)
            return .values(0)
        }
        let type: EventType? = call.isAbsent(2) ? nil : try call.eventType(at: 2)
        let wholeLocation = call.object(.reference, at: 1, as: LuaBox<Reference>.self) != nil
        for listener in listeners
        where listener.database === query.database
            && (wholeLocation ? listener.spec.path == query.spec.path : listener.spec == query.spec)
            && (type == nil || listener.eventType == type)
        {
            remove(listener)
        }
        return .values(0)
    }

    /// Switches `listener` off and lets Lua collect its function.
    func remove(_ listener: LuaListener) {
        guard listener.isActive else { return }
        listener.isActive = false
        if let handle = listener.handle { listener.database.removeObserver(handle) }
        release(listener.function)
        if let cancel = listener.cancelFunction { release(cancel) }
        listeners.removeAll { $0 === listener }
    }

    /// A listener handle: `h:off()`; closing it (`local h <close> = ref:on(...)`) switches it off.
    func listenerDefinition() -> LuaTypeDefinition {
        var definition = LuaTypeDefinition(type: .listener, prefix: "listener")
        let off: LuaBinding = { call throws(LuaBindingError) in
            guard let listener = call.object(.listener, at: 1, as: LuaListener.self) else {
                throw call.wrongType(at: 1, expected: "a ListenerHandle")
            }
            call.runtime.remove(listener)
            return .values(0)
        }
        definition.methods = [("off", off)]
        definition.fields = [
            ("active", { call throws(LuaBindingError) in
                call.push(call.object(.listener, at: 1, as: LuaListener.self)?.isActive ?? false)
                return .values(1)
            }),
        ]
        definition.metamethods = [
            ("__close", off),
            ("__tostring", { call throws(LuaBindingError) in
                guard let listener = call.object(.listener, at: 1, as: LuaListener.self) else {
                    throw call.wrongType(at: 1, expected: "a ListenerHandle")
                }
                call.push("ListenerHandle(\(listener.context)\(listener.isActive ? "" : ", off"))")
                return .values(1)
            }),
        ]
        return definition
    }
}

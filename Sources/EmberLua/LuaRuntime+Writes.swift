import EmberClient
import EmberCore
import EmberEngine
import EmberInstance

/// Writes (`set`, `update`, `push`, `remove`, priorities), their handles, and `onDisconnect`.
extension LuaRuntime {
    /// Starts a write: `start` gets the completion to pass to the client. Pushes the handle
    /// (after `resultsBefore` values the caller pushed) and returns what the binding returns.
    /// The function at `callbackIndex`, if any, is called with an error object (or `nil`) when
    /// the server answers.
    func performWrite(
        _ call: LuaCall, _ verb: StaticString, at path: Path, callbackAt callbackIndex: Int32, resultsBefore: Int32 = 0,
        pushingFirst pushFirst: () -> Void = {},
        _ start: (@escaping (DatabaseError?) -> Void) throws(DatabaseError) -> Void
    ) throws(LuaBindingError) -> LuaCallResult {
        var callback: Int32?
        if call.type(at: callbackIndex) == .function {
            callback = try call.function(at: callbackIndex)
        } else if !call.isAbsent(callbackIndex) {
            throw call.wrongType(at: callbackIndex, expected: "a completion function")
        }
        let handle = LuaWriteHandle(verb, at: path, callback: callback, of: self)
        do {
            try start(handle.answered)
        } catch {
            if let callback { release(callback) }
            throw call.failure(error)
        }
        pushFirst()
        call.push(object: handle, as: .writeHandle)
        return deliveringFirst(resultsBefore + 1, on: call.thread)
    }

    /// `set`, `update`, `push`, `remove`, `setPriority`, `setWithPriority` of a reference.
    func writeMethods() -> [(name: String, body: LuaBinding)] {
        [
            ("set", { call throws(LuaBindingError) in
                let reference = try call.reference(at: 1)
                let value = try call.json(at: 2)
                var priority: Priority?
                var callbackIndex: Int32 = 3
                if !call.isAbsent(3) && call.type(at: 3) != .function {
                    priority = try call.priority(at: 3)
                    callbackIndex = 4
                } else if call.isAbsent(3) && call.count >= 4 {
                    callbackIndex = 4
                }
                return try call.runtime.performWrite(call, "set", at: reference.path, callbackAt: callbackIndex) {
                    done throws(DatabaseError) in try reference.setValue(value, priority: priority, completion: done)
                }
            }),
            ("setWithPriority", { call throws(LuaBindingError) in
                let reference = try call.reference(at: 1)
                let value = try call.json(at: 2)
                let priority = try call.priority(at: 3)
                return try call.runtime.performWrite(call, "set", at: reference.path, callbackAt: 4) {
                    done throws(DatabaseError) in try reference.setValue(value, priority: priority, completion: done)
                }
            }),
            ("setPriority", { call throws(LuaBindingError) in
                let reference = try call.reference(at: 1)
                let priority = try call.priority(at: 2)
                return try call.runtime.performWrite(call, "priority", at: reference.path, callbackAt: 3) {
                    done throws(DatabaseError) in try reference.setPriority(priority, completion: done)
                }
            }),
            ("update", { call throws(LuaBindingError) in
                let reference = try call.reference(at: 1)
                let changes = try Self.changes(call, at: 2, below: reference.path)
                return try call.runtime.performWrite(call, "update", at: reference.path, callbackAt: 3) {
                    done throws(DatabaseError) in try reference.updateNodes(changes, completion: done)
                }
            }),
            ("remove", { call throws(LuaBindingError) in
                let reference = try call.reference(at: 1)
                return try call.runtime.performWrite(call, "remove", at: reference.path, callbackAt: 2) {
                    done throws(DatabaseError) in try reference.removeValue(completion: done)
                }
            }),
            ("push", { call throws(LuaBindingError) in
                let reference = try call.reference(at: 1)
                let child = reference.childByAutoId()
                if call.isAbsent(2) && call.count < 3 {
                    call.push(child)
                    return .values(1)
                }
                let value = try call.json(at: 2)
                return try call.runtime.performWrite(
                    call, "push", at: child.path, callbackAt: 3, resultsBefore: 1, pushingFirst: { call.push(child) }
                ) {
                    done throws(DatabaseError) in try child.setValue(value, completion: done)
                }
            }),
        ]
    }

    /// The table at `index` as the changes of a multi-path update below `path`: each key a
    /// relative path (`"a/b"`), each value its new value (`ember.null` deletes).
    static func changes(_ call: LuaCall, at index: Int32, below path: Path) throws(LuaBindingError) -> [(Path, Node)] {
        guard call.type(at: index) == .table else { throw call.wrongType(at: index, expected: "a table of paths and values") }
        let members: [(key: String, value: JSONValue)]
        switch try call.json(at: index) {
        case .object(let object): members = object
        default: throw call.error(at: index, "expected a table of paths and values, got a sequence")
        }
        var changes: [(Path, Node)] = []
        changes.reserveCapacity(members.count)
        for member in members {
            changes.append(try call.attempt { () throws(DatabaseError) in
                let relative = try Path(validatingWriteTarget: member.key)
                let full = path.appending(relative)
                try full.checkDepth()
                return (relative, try Node(json: member.value, at: full))
            })
        }
        return changes
    }

    /// A write's handle: `h:wait([timeout_ms]) -> true | nil, err`, `err` an error object (code
    /// `timeout` when the timeout passed first).
    func writeHandleDefinition() -> LuaTypeDefinition {
        var definition = LuaTypeDefinition(type: .writeHandle, prefix: "handle")
        definition.methods = [
            ("wait", { call throws(LuaBindingError) in
                guard let handle = call.object(.writeHandle, at: 1, as: LuaWriteHandle.self) else {
                    throw call.wrongType(at: 1, expected: "a WriteHandle")
                }
                let timeout =
                    call.isAbsent(2)
                    ? nil : try call.milliseconds(at: 2, what: "the timeout", hint: " (leave it out to wait without a limit)")
                func answer(_ call: LuaCall, _ answer: DatabaseError?) -> LuaCallResult {
                    guard let error = answer else {
                        call.push(true)
                        return .values(1)
                    }
                    call.pushNil()
                    call.push(error: error)
                    return .values(2)
                }
                if let known = handle.answer { return answer(call, known) }
                try call.requireWaiting()
                let runtime = call.runtime
                let deadline = timeout.map { runtime.ember.clock.now() + $0 }
                return runtime.suspend(call, on: LuaWait(deadline: deadline, isReady: { handle.answer != nil }) { call, outcome in
                    switch outcome {
                    case .ready: return answer(call, handle.answer ?? nil)
                    case .timedOut:
                        call.pushNil()
                        call.thread.push(
                            errorCode: ErrorCode.timeout,
                            message: "timeout: the \(handle.label) was not answered within \(timeout ?? 0) ms (it stays queued)")
                        return .values(2)
                    case .failed(let error):
                        call.pushNil()
                        call.push(error: error)
                        return .values(2)
                    }
                })
            }),
        ]
        definition.fields = [
            ("done", { call throws(LuaBindingError) in
                call.push(call.object(.writeHandle, at: 1, as: LuaWriteHandle.self)?.answer != nil)
                return .values(1)
            }),
        ]
        definition.metamethods = [
            ("__tostring", { call throws(LuaBindingError) in
                guard let handle = call.object(.writeHandle, at: 1, as: LuaWriteHandle.self) else {
                    throw call.wrongType(at: 1, expected: "a WriteHandle")
                }
                let state: String =
                    switch handle.answer {
                    case nil: "waiting"
                    case .some(nil): "done"
                    case .some(.some(let error)): "failed: \(error.message)"
                    }
                call.push("WriteHandle(\(handle.label), \(state))")
                return .values(1)
            }),
        ]
        return definition
    }

    /// `ref:onDisconnect()`: `set`, `setWithPriority`, `update`, `remove`, `cancel`.
    func onDisconnectDefinition() -> LuaTypeDefinition {
        func operations(_ call: LuaCall) throws(LuaBindingError) -> OnDisconnect {
            guard let box = call.object(.onDisconnect, at: 1, as: LuaBox<OnDisconnect>.self) else {
                throw call.wrongType(at: 1, expected: "an OnDisconnect")
            }
            return box.value
        }
        var definition = LuaTypeDefinition(type: .onDisconnect, prefix: "onDisconnect")
        definition.methods = [
            ("set", { call throws(LuaBindingError) in
                let operations = try operations(call)
                let value = try call.json(at: 2)
                return try call.runtime.performWrite(call, "onDisconnect set", at: operations.reference.path, callbackAt: 3) {
                    done throws(DatabaseError) in try operations.setValue(value, completion: done)
                }
            }),
            ("setWithPriority", { call throws(LuaBindingError) in
                let operations = try operations(call)
                let value = try call.json(at: 2)
                let priority = try call.priority(at: 3)
                return try call.runtime.performWrite(call, "onDisconnect set", at: operations.reference.path, callbackAt: 4) {
                    done throws(DatabaseError) in try operations.setValue(value, priority: priority, completion: done)
                }
            }),
            ("update", { call throws(LuaBindingError) in
                let operations = try operations(call)
                guard case .object(let members) = try call.json(at: 2) else {
                    throw call.error(at: 2, "expected a table of paths and values")
                }
                return try call.runtime.performWrite(call, "onDisconnect update", at: operations.reference.path, callbackAt: 3) {
                    done throws(DatabaseError) in try operations.updateChildValues(members, completion: done)
                }
            }),
            ("remove", { call throws(LuaBindingError) in
                let operations = try operations(call)
                return try call.runtime.performWrite(call, "onDisconnect remove", at: operations.reference.path, callbackAt: 2) {
                    done throws(DatabaseError) in try operations.removeValue(completion: done)
                }
            }),
            ("cancel", { call throws(LuaBindingError) in
                let operations = try operations(call)
                return try call.runtime.performWrite(call, "onDisconnect cancel", at: operations.reference.path, callbackAt: 2) {
                    done throws(DatabaseError) in try operations.cancel(completion: done)
                }
            }),
        ]
        definition.metamethods = [
            ("__tostring", { call throws(LuaBindingError) in
                call.push("OnDisconnect(\(try operations(call).reference.path))")
                return .values(1)
            }),
        ]
        return definition
    }

    /// Server value placeholders: only `tostring`.
    func serverValueDefinition() -> LuaTypeDefinition {
        var definition = LuaTypeDefinition(type: .serverValue, prefix: "ServerValue")
        definition.metamethods = [
            ("__tostring", { call throws(LuaBindingError) in
                call.push(call.object(.serverValue, at: 1, as: LuaServerValue.self)?.label ?? "ServerValue")
                return .values(1)
            }),
        ]
        return definition
    }
}

import EmberClient
import EmberCore
import EmberEngine
import EmberInstance

/// `ref:transaction(update [, onComplete] [, {applyLocally = true}])`.
extension LuaRuntime {
    /// Runs a transaction whose update function is Lua. Without `onComplete` it waits and
    /// returns `committed, snapshot`; with it, it returns at once and `onComplete(err,
    /// committed, snapshot)` runs when the transaction ends.
    ///
    /// The update function runs with a plain protected call: it cannot wait, and may run several
    /// times. Returning `nil` aborts, `ember.null` deletes. When it raises, the transaction is
    /// aborted and the error (with its location) is what the script gets: raised by the waiting
    /// form, passed as `err` to `onComplete`. Either way it is an error object: `err.code` is
    /// `overridden_by_set`, `max_retries`, `disconnected`... (Firebase's `set`, `maxretry`,
    /// `disconnect`), or `lua_error` when the update function raised.
    func transaction(_ call: LuaCall) throws(LuaBindingError) -> LuaCallResult {
        let reference = try call.reference(at: 1)
        guard call.type(at: 2) == .function else { throw call.wrongType(at: 2, expected: "an update function") }
        var completionIndex: Int32?
        var optionsIndex: Int32?
        switch call.type(at: 3) {
        case .function:
            completionIndex = 3
            if !call.isAbsent(4) { optionsIndex = 4 }
        case .table: optionsIndex = 3
        case .nil, .noValue: if !call.isAbsent(4) { optionsIndex = 4 }
        default: throw call.wrongType(at: 3, expected: "an onComplete function or a table of options")
        }
        var applyLocally = true
        if let optionsIndex {
            guard call.type(at: optionsIndex) == .table else {
                throw call.wrongType(at: optionsIndex, expected: "a table of options ({applyLocally = true})")
            }
            let top = call.count
            let type = call.pushField("applyLocally", ofTableAt: optionsIndex)
            if type != .nil {
                guard type == .boolean else { throw call.error(at: optionsIndex, "applyLocally must be a boolean") }
                applyLocally = call.thread.isTrue(at: -1)
            }
            call.thread.setTop(top)
        }
        if completionIndex == nil { try call.requireWaiting() }
        let completion = try completionIndex.map { (index) throws(LuaBindingError) in try call.function(at: index) }
        let update = LuaFunctionReference(owner: lua, reference: try call.function(at: 2), name: "=transaction")
        let outcome = LuaTransactionOutcome()
        let lua = lua
        let path = reference.path
        do throws(DatabaseError) {
            try reference.runTransaction(applyLocally: applyLocally, { current in
                switch lua.transactionUpdate(update, current: current.jsonValue(.normal), at: path) {
                case .success(let next?): return .commit(next)
                case .success(nil): return .abort
                case .failure(let error):
                    outcome.failure = error
                    return .abort
                }
            }, completion: { [weak self] result in
                outcome.result = result
                update.release()
                guard let self, let completion else { return }
                var arguments: [LuaCallback.Argument] = [.error(outcome.error(at: path))]
                if case .success(let done) = result {
                    arguments += [.boolean(done.committed), .snapshot(done.snapshot)]
                } else {
                    arguments += [.boolean(false)]
                }
                self.enqueue(LuaCallback(
                    function: completion, releasesFunction: true, arguments: arguments,
                    context: "onComplete of the transaction at \(path)", listener: nil))
            })
        } catch {
            update.release()
            if let completion { release(completion) }
            throw call.failure(error)
        }
        if completion != nil { return deliveringFirst(0, on: call.thread) }
        return suspend(call, on: LuaWait(isReady: { outcome.result != nil }) { call, waited throws(LuaBindingError) in
            if case .failed(let error) = waited { throw call.failure(error) }
            if let error = outcome.error(at: path) { throw call.failure(error) }
            guard case .success(let done) = outcome.result! else { return .values(0) }
            call.push(done.committed)
            call.push(done.snapshot)
            return .values(2)
        })
    }
}

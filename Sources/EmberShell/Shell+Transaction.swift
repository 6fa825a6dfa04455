import EmberClient
import EmberCore
import EmberLua
import EmberQL

/// `transaction PATH FUNCTION`: a Lua function computes the new value from the current one.
extension Shell {
    /// Compiles the function, runs the transaction (the function may run several times, once
    /// per attempt, each shown), and prints whether it committed and the value.
    func transaction(_ expression: PathExpression, function: Word) throws(ShellError) {
        let path = try resolve(expression)
        let state = try scripting().lua
        let update: LuaFunctionReference
        do {
            update = try state.compileFunction(function.text, name: "=transaction")
        } catch {
            throw .lua(error)
        }
        defer { update.release() }
        final class Outcome {
            var result: Result<TransactionResult, DatabaseError>?
            var failure: LuaError?
            var attempts = 0
        }
        let outcome = Outcome()
        let pretty = !isJSON
        do {
            try database.reference(path).runTransaction({ [self] current in
                outcome.attempts += 1
                let value = current.jsonValue(.normal)
                let next: Node
                switch state.transactionUpdate(update, current: value, at: path) {
                case .success(let node?): next = node
                case .success(nil):
                    if pretty { print("attempt \(outcome.attempts): \(formatter.compact(value)) → abort") }
                    return .abort
                case .failure(let error):
                    outcome.failure = error
                    return .abort
                }
                if pretty { print("attempt \(outcome.attempts): \(formatter.compact(value)) → \(formatter.compact(next.jsonValue(.normal)))") }
                return .commit(next)
            }, completion: { outcome.result = $0 })
        } catch {
            throw .database(error, at: expression.position)
        }
        if database.connectionState == .offline && outcome.result == nil {
            if isJSON {
                printJSON(.object([("committed", .bool(false)), ("queued", .bool(true)), ("attempts", .int(Int64(outcome.attempts)))]))
            } else {
                print(style.warning("queued (offline): the transaction runs again when the client reconnects"))
            }
            return
        }
        try wait(until: { outcome.result != nil }, interrupted: "stopped waiting; the transaction goes on")
        if let failure = outcome.failure { throw .lua(failure) }
        switch outcome.result! {
        case .failure(let error):
            throw .database(error, at: expression.position)
        case .success(let result):
            let value = result.snapshot.value
            if isJSON {
                printJSON(.object([("committed", .bool(result.committed)), ("value", value), ("attempts", .int(Int64(result.attempts)))]))
            } else {
                print((result.committed ? style.ok("committed") : style.warning("aborted")) + ": " + formatter.compact(value))
            }
        }
    }
}

import EmberEngine
import EmberClient
import EmberCore
import EmberLua
import EmberQL

/// `transaction PATH FUNCTION`: a Lua function computes the new value from the current one.
extension Shell {
    /// Compiles the function, runs the transaction (the function may run several times, once
    /// per attempt, each shown), and prints whether it committed and the value.
    func transaction(_ expression: PathExpression, function: Word) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let state = try scripting().lua
        let update: LuaFunctionReference
        do {
            update = try state.compileFunction(function.text, name: "=transaction")
        } catch {
            // Not a function (issue 37: `transaction /c v + 1` gave a bare Lua error): say what
            // the command takes.
            let guidance = "transaction PATH FUNCTION takes a Lua function of the current value (nil when there is none), "
                + "e.g. transaction \(path) function(v) return (v or 0) + 1 end"
            throw .lua(LuaError(error.kind, message: "\(error.message)\n\(guidance)", traceback: nil, code: error.code))
        }
        defer { update.release() }
        // What the update function saw, as it ran (it runs inside the client's operations).
        final class Attempts {
            var failure: LuaError?
            var count = 0
        }
        let outcome = Attempts()
        let answer = Pending<Result<TransactionResult, DatabaseError>>()
        do {
            try database.reference(path).runTransaction({ [self] current in
                outcome.count += 1
                let value = current.jsonValue(.normal)
                let next: Node
                switch state.transactionUpdate(update, current: value, at: path) {
                case .success(let node?): next = node
                case .success(nil):
                    progress("attempt \(outcome.count): \(formatter.compact(value)) → abort")
                    return .abort
                case .failure(let error):
                    outcome.failure = error
                    return .abort
                }
                progress("attempt \(outcome.count): \(formatter.compact(value)) → \(formatter.compact(next.jsonValue(.normal)))")
                return .commit(next)
            }, completion: answer.filler)
        } catch {
            throw .database(error, at: expression.position)
        }
        switch answer.isFilled ? nil : waitingStatus(of: database) {
        case .queued?: return .transaction(.queued(attempts: outcome.count))
        case .held(let reason)?: return .transaction(.held(attempts: outcome.count, reason: reason))
        case .acknowledged?, nil: break
        }
        try wait(for: answer, interrupted: "stopped waiting; the transaction goes on")
        if let failure = outcome.failure { throw .lua(failure) }
        switch answer.value! {
        case .failure(let error):
            throw .database(error, at: expression.position)
        case .success(let result):
            return .transaction(.finished(committed: result.committed, value: result.snapshot.value, attempts: result.attempts))
        }
    }
}

import EmberClient
import EmberCore

/// How a script's transaction ended: the client's result, and the update function's error
/// when it raised.
final class LuaTransactionOutcome {
    /// The client's result, once the transaction ended.
    var result: Result<TransactionResult, DatabaseError>?
    /// The update function's error, when it raised (the transaction was aborted).
    var failure: LuaError?

    /// Why the transaction failed, for the script: the update function's error (code
    /// `lua_error`, or `invalid_value`... for a result that cannot be stored; the message with its
    /// location and traceback) or the database's (`overridden_by_set`, `max_retries`...); `nil`
    /// when it committed or was aborted by returning `nil`.
    func error(at path: Path) -> DatabaseError? {
        if let failure {
            let traceback = failure.traceback.map { "\n" + $0 } ?? ""
            return .other(
                code: failure.code,
                message: "the update function of the transaction at \(path) failed: \(failure.message)\(traceback)")
        }
        if case .failure(let error)? = result { return error }
        return nil
    }
}

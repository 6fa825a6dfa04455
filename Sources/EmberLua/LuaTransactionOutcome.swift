import EmberClient
import EmberCore

/// How a script's transaction ended: the client's result, and the update function's error
/// when it raised.
final class LuaTransactionOutcome {
    /// The client's result, once the transaction ended.
    var result: Result<TransactionResult, DatabaseError>?
    /// The update function's error, when it raised (the transaction was aborted).
    var failure: LuaError?

    /// Why the transaction failed, for the script: the update function's error (with its
    /// location and traceback) or the database's; `nil` when it committed or was aborted by
    /// returning `nil`.
    func errorMessage(at path: Path) -> String? {
        if let failure {
            let traceback = failure.traceback.map { "\n" + $0 } ?? ""
            return "the update function of the transaction at \(path) failed: \(failure.message)\(traceback)"
        }
        if case .failure(let error)? = result { return error.message }
        return nil
    }
}

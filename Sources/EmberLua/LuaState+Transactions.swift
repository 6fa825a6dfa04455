import EmberCore

/// Running a transaction's update function: the one rule of what its result means.
extension LuaState {
    /// Calls `update` with the current value at `path` and reads its result: `nil` aborts
    /// (`.success(nil)`), `ember.null` deletes (the empty node), any other value is the new value.
    ///
    /// - Returns: the new node or `nil` to abort, or the error the function raised (or the reason
    ///   its result is not a value that can be stored at `path`).
    /// - Complexity: O(n) in the size of the values, besides the function's own work.
    public func transactionUpdate(
        _ update: LuaFunctionReference, current: JSONValue, at path: Path
    ) -> Result<Node?, LuaError> {
        let results: [LuaResult]
        do {
            results = try call(update, with: [current])
        } catch {
            return .failure(error)
        }
        switch results.first ?? .nil {
        case .nil: return .success(nil)
        case .null: return .success(.empty)
        case .json(let json):
            do throws(DatabaseError) {
                return .success(try Node(json: json, at: path))
            } catch {
                return .failure(LuaError(
                    .conversion, message: "the update function returned an invalid value: \(error.message)", code: error.code))
            }
        }
    }
}

import EmberCore

/// Checks and conversions bindings share.
extension LuaCall {
    /// Throws unless the running code can wait (it runs in a coroutine the runtime drives, not in
    /// a transaction function, a metamethod, a `table.sort` comparator or a `__gc` finalizer).
    func requireWaiting() throws(LuaBindingError) {
        guard thread.canWait else {
            throw failure(
                code: ErrorCode.cannotWait,
                "cannot wait here (inside a transaction function, a metamethod, a sort comparator or a __gc finalizer, nothing may wait)")
        }
    }

    /// Argument `index` as a duration in milliseconds, from 0 to ``LuaWait/longestDuration``.
    ///
    /// - Parameters:
    ///   - what: the duration in messages ("the time to sleep", "the timeout").
    ///   - hint: added to the message when the value is out of range.
    /// - Throws: ``LuaBindingError`` for a value that is not a number, not integral, negative or
    ///   too long (never a value whose deadline would overflow the clock).
    func milliseconds(at index: Int32, what: String, hint: String = "") throws(LuaBindingError) -> Int64 {
        guard thread.type(at: index) == .number else { throw wrongType(at: index, expected: "\(what) in milliseconds") }
        let value: Double
        let shown: String
        if thread.isInteger(at: index) {
            let integer = thread.integer(at: index)
            value = Double(integer)
            shown = String(integer)
        } else {
            value = thread.number(at: index)
            shown = "\(value)"
            guard value.rounded() == value else {
                throw error(at: index, "expected \(what) as an integer number of milliseconds, got \(shown)")
            }
        }
        guard value >= 0 else { throw error(at: index, "\(what) cannot be negative, got \(shown)\(hint)") }
        guard value <= Double(LuaWait.longestDuration) else {
            throw error(at: index, "\(what) must be at most \(LuaWait.longestDuration) milliseconds (1 day), got \(shown)\(hint)")
        }
        return Int64(value)
    }

    /// Runs a client call, turning its error into this function's error.
    func attempt<Value>(_ body: () throws(DatabaseError) -> Value) throws(LuaBindingError) -> Value {
        do {
            return try body()
        } catch {
            throw failure(error)
        }
    }
}

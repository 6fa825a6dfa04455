import EmberCore
import EmberWire

/// The arguments of `db:auth` and `ember.client(name, {auth = ...})`.
extension LuaCall {
    /// Argument `index` as the claims of a user: a table such as `{uid = "alice", admin = true}`.
    func claims(at index: Int32) throws(LuaBindingError) -> JSONValue {
        guard thread.type(at: index) == .table else {
            throw wrongType(at: index, expected: "a table of claims such as {uid = \"alice\"}")
        }
        return try json(at: index)
    }

    /// The token lifetime of an options table `{expires = MS}` at `index` (absent: an hour).
    func tokenLifetime(optionsAt index: Int32) throws(LuaBindingError) -> Int64 {
        guard !isAbsent(index) else { return AuthToken.defaultLifetime }
        guard thread.type(at: index) == .table else { throw wrongType(at: index, expected: "a table of options {expires = MS}") }
        defer { thread.setTop(index) }
        guard pushField("expires", ofTableAt: index) != .nil else { return AuthToken.defaultLifetime }
        // The range is the token's to check (`AuthToken.unsigned`).
        guard thread.isInteger(at: -1) else { throw error(at: index, "expires must be an integer number of milliseconds") }
        return thread.integer(at: -1)
    }
}

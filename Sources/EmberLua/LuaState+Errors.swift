import CLua
import CLuaSupport
import EmberCore

/// Error objects: what scripts get for every error Ember raises or reports to them.
///
/// An error object is a read-only userdata (`getmetatable(err) == "ember.error"`) with
/// `err.code` (a stable code, one of ``ErrorCode``), `err.message` and `err.path` (the database
/// path, or `nil`). `tostring(err)` is the message, `..` concatenates it, and string methods work
/// on it (`err:find("offline")`), so scripts written when errors were strings keep working.
/// See `CLuaSupport.h` (`ember_lua_push_error`) for the metatable.
///
/// ```lua
/// local ok, err = pcall(function() return db:ref("bad.key") end)
/// print(err.code)      --> invalid_path
/// print(err)           --> lua:1: db:ref: invalid path "bad.key": ...
/// ```
extension LuaState {
    /// Pushes an error object with `code`, `message` and `path` (allocates: see
    /// ``push(json:onto:nested:depth:)``).
    static func push(errorCode code: String, message: String, path: Path? = nil, onto state: OpaquePointer) {
        push(string: code, onto: state)
        push(string: message, onto: state)
        if let path { push(string: path.description, onto: state) } else { lua_pushnil(state) }
        ember_lua_push_error(state)
    }

    /// Pushes an error object for a database error: its code, message and path.
    static func push(error: DatabaseError, onto state: OpaquePointer) {
        push(errorCode: error.code, message: error.message, path: error.path, onto: state)
    }

    /// Pushes an error object for a binding's failure.
    static func push(error: LuaBindingError, onto state: OpaquePointer) {
        push(errorCode: error.code, message: error.message, path: error.path, onto: state)
    }

    /// The code, message and path of the error object at `index` of `state`, or `nil` when the
    /// value is not an error object. Never allocates.
    static func errorObject(in state: OpaquePointer, at index: Int32) -> (code: String, message: String, path: String?)? {
        guard ember_lua_is_error(state, index) != 0, lua_checkstack(state, 3) != 0 else { return nil }
        let absolute = lua_absindex(state, index)
        _ = ember_lua_push_error_field(state, absolute, EMBER_LUA_ERROR_CODE)
        _ = ember_lua_push_error_field(state, absolute, EMBER_LUA_ERROR_MESSAGE)
        _ = ember_lua_push_error_field(state, absolute, EMBER_LUA_ERROR_PATH)
        defer { ember_lua_pop(state, 3) }
        guard case .string(let code) = value(in: state, at: -3), case .string(let message) = value(in: state, at: -2) else {
            return nil
        }
        guard case .string(let path) = value(in: state, at: -1) else { return (code, message, nil) }
        return (code, message, path)
    }
}

extension LuaState.Thread {
    /// Pushes an error object with `code`, `message` and `path` (allocates).
    func push(errorCode code: String, message: String, path: Path? = nil) {
        LuaState.push(errorCode: code, message: message, path: path, onto: pointer)
    }

    /// Pushes an error object for a database error: its code, message and path.
    func push(error: DatabaseError) { LuaState.push(error: error, onto: pointer) }

    /// Pushes an error object for a binding's failure.
    func push(error: LuaBindingError) { LuaState.push(error: error, onto: pointer) }

    /// The code, message and path of the error object at `index`, or `nil` when the value is not
    /// an error object. Never allocates.
    func errorObject(at index: Int32) -> (code: String, message: String, path: String?)? {
        LuaState.errorObject(in: pointer, at: index)
    }

    /// Pushes the constructor of error objects that the prelude gives scripts (`ember_lua_new_error`).
    func pushErrorConstructor() { ember_lua_pushcfunction(pointer, ember_lua_new_error) }
}

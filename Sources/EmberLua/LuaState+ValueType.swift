import CLua

extension LuaState {
    /// The type of a value on a Lua stack (`lua_type`), `noValue` for an index past the top.
    enum ValueType {
        /// No value at that index (`LUA_TNONE`): a missing argument.
        case noValue
        /// `nil`.
        case `nil`
        /// `true` or `false`.
        case boolean
        /// A light userdata (the wait sentinel).
        case lightUserdata
        /// An integer or a float.
        case number
        /// A string.
        case string
        /// A table.
        case table
        /// A Lua or C function.
        case function
        /// A full userdata (Ember's objects, `ember.null`, error objects).
        case userdata
        /// A coroutine.
        case thread

        /// The type Lua numbers `code` (a `LUA_T*` constant).
        init(code: Int32) {
            switch code {
            case LUA_TNIL: self = .nil
            case LUA_TBOOLEAN: self = .boolean
            case LUA_TLIGHTUSERDATA: self = .lightUserdata
            case LUA_TNUMBER: self = .number
            case LUA_TSTRING: self = .string
            case LUA_TTABLE: self = .table
            case LUA_TFUNCTION: self = .function
            case LUA_TUSERDATA: self = .userdata
            case LUA_TTHREAD: self = .thread
            default: self = .noValue
            }
        }

        /// Whether it is `nil` or no value: an absent argument.
        var isAbsent: Bool { self == .nil || self == .noValue }
    }
}

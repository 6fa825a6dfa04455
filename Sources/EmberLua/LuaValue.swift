/// A Lua value as Swift sees it across the boundary: the scalars by value, everything else by
/// its type name.
///
/// Integers and floats stay apart, as in Lua 5.4 (`math.type`): `return 1` is `.integer(1)` and
/// `return 1.0` is `.number(1.0)`. Strings are decoded as UTF-8, with invalid bytes replaced.
/// Tables, functions, userdata and threads are not converted yet; they arrive as
/// `.other(typeName:)` (the JSON conversion of tables belongs to the value-conversion layer).
public enum LuaValue: Sendable, Hashable {
    /// `nil`.
    case `nil`
    /// `true` or `false`.
    case boolean(Bool)
    /// An integer (Lua's integer subtype, 64 bits).
    case integer(Int64)
    /// A float (Lua's float subtype, an IEEE double).
    case number(Double)
    /// A string.
    case string(String)
    /// A value that is not converted, named by its Lua type: "table", "function", "userdata",
    /// "thread".
    case other(typeName: String)
}

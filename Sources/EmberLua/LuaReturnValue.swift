import EmberCore

/// A value a script returned (or a `lua` expression gave), as the shell prints it.
public enum LuaReturnValue: Sendable, Equatable {
    /// `nil`.
    case `nil`
    /// A value with a JSON form: scalars, tables that convert, a snapshot's value.
    case json(JSONValue)
    /// Anything else, as text (`Reference(/users)`, `function: 0x...`, `ember.null`).
    case text(String)
}

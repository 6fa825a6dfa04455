import EmberCore

/// One value returned by a Lua function called from Swift (``LuaState/call(_:with:)``), as JSON,
/// keeping apart the two Lua values that both mean JSON `null`.
///
/// For a transaction's update function: ``nil`` aborts, ``null`` deletes (writes null), and
/// ``json(_:)`` is the new value.
///
/// ```swift
/// let results = try lua.call(update, with: [current])
/// switch results.first ?? .nil {
/// case .nil: abort()
/// case .null: write(.null)
/// case .json(let value): write(value)
/// }
/// ```
public enum LuaResult: Sendable, Equatable {
    /// Lua `nil` (a missing result also reads as `nil`).
    case `nil`
    /// The sentinel `ember.null`: an explicit JSON null.
    case null
    /// Any other value, converted to JSON (never `.null` at the top level).
    case json(JSONValue)

    /// The value as JSON: `nil` and `ember.null` are both `null`.
    public var jsonValue: JSONValue {
        switch self {
        case .nil, .null: .null
        case .json(let value): value
        }
    }

    /// Whether the value is Lua `nil`.
    public var isNil: Bool {
        if case .nil = self { true } else { false }
    }
}

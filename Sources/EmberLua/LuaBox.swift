/// A value type held by a Lua userdata (Lua keeps a retained pointer to the box).
final class LuaBox<Value> {
    /// The value.
    let value: Value

    /// Boxes `value`.
    init(_ value: Value) {
        self.value = value
    }
}

/// How one object type looks from Lua: its methods (`ref:set`), fields (`ref.key`) and
/// metamethods (`__tostring`, `__eq`, `__close`).
struct LuaTypeDefinition {
    /// The type.
    let type: LuaObjectType
    /// How messages name a value of the type (`ref` in "ref:set: ...").
    let prefix: String
    /// Methods, called with `:`.
    var methods: [(name: String, body: LuaBinding)] = []
    /// Fields, computed from the object when read.
    var fields: [(name: String, body: LuaBinding)] = []
    /// Metamethods.
    var metamethods: [(name: String, body: LuaBinding)] = []
    /// The type of the Ember object a method or field gives, by name, kept in the metatable's
    /// `__returns` for the REPL's completion of chains (`db:ref('a'):o<Tab>`).
    var returns: [String: LuaObjectType] = [:]
}

/// The kinds of Swift objects Lua scripts hold as userdata, each with its own metatable.
///
/// The raw value is the type number `CLuaSupport` files the metatable under
/// (see `LuaState+UserData.swift`).
enum LuaObjectType: Int32, CaseIterable {
    /// A client (`db`, `ember.client(name)`): holds a `Database`.
    case database = 0
    /// A location (`db:ref(path)`): holds a `LuaBox<Reference>`.
    case reference
    /// A query (`ref:orderByChild(...)`): holds a `LuaBox<Query>`.
    case query
    /// A snapshot: holds a `LuaBox<DataSnapshot>`.
    case snapshot
    /// `ref:onDisconnect()`: holds a `LuaBox<OnDisconnect>`.
    case onDisconnect
    /// What a write returns: holds a ``LuaWriteHandle``.
    case writeHandle
    /// What `on` returns: holds a ``LuaListener``.
    case listener
    /// `ember.ServerValue.TIMESTAMP`, `ember.ServerValue.increment(n)`: holds a ``LuaServerValue``.
    case serverValue

    /// The name `tostring` and error messages use (`__name`).
    var name: String {
        switch self {
        case .database: "Database"
        case .reference: "Reference"
        case .query: "Query"
        case .snapshot: "DataSnapshot"
        case .onDisconnect: "OnDisconnect"
        case .writeHandle: "WriteHandle"
        case .listener: "ListenerHandle"
        case .serverValue: "ServerValue"
        }
    }
}

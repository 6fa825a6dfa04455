/// A Lua table kept in the registry of its ``LuaState``, so Swift can name it later (the table of
/// globals that ``LuaState/completions(for:globals:)`` completes against).
///
/// Made by ``LuaState/globalsTableReference()``. The reference pins the table until the object
/// goes away. It does not keep its state alive: once the state is gone, the reference is inert.
/// Like its state, it is confined to one thread.
public final class LuaTableReference {
    /// The state whose registry holds the table.
    weak var owner: LuaState?

    /// The registry reference.
    let reference: Int32

    /// Wraps the registry reference `reference` of `owner`, which must hold a table.
    init(owner: LuaState, reference: Int32) {
        self.owner = owner
        self.reference = reference
    }

    deinit {
        if let owner {
            owner.releaseReference(reference)
        }
    }
}

/// A Lua function kept in the registry of its ``LuaState``, so Swift can call it many times with
/// ``LuaState/call(_:with:)`` (a transaction's update function, a listener callback).
///
/// Made by ``LuaState/compileFunction(_:name:)``. The reference pins the function (and whatever it
/// captures) until ``release()`` or until the object goes away. It does not keep its state alive:
/// once the state is gone, the reference is inert. Like its state, it is confined to one thread.
public final class LuaFunctionReference {
    /// The chunk name the function was compiled under (e.g. `"=transaction"`).
    public let name: String

    /// The state whose registry holds the function.
    weak var owner: LuaState?

    /// The registry reference, or ``LuaState/noReference`` once released.
    private(set) var reference: Int32

    /// Wraps the registry reference `reference` of `owner`.
    init(owner: LuaState, reference: Int32, name: String) {
        self.owner = owner
        self.reference = reference
        self.name = name
    }

    deinit {
        release()
    }

    /// Whether ``release()`` was called (or the state is gone): the function can no longer be called.
    public var isReleased: Bool { reference == LuaState.noReference || owner == nil }

    /// Frees the registry reference, letting Lua collect the function. Calling it again does nothing.
    public func release() {
        if let owner, reference != LuaState.noReference {
            owner.releaseReference(reference)
        }
        reference = LuaState.noReference
    }
}

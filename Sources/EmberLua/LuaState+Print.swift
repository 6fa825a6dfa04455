import CLua
import CLuaSupport

/// Lua's `print`, redirected to ``LuaState/printHandler``.
extension LuaState {
    /// Replaces the global `print` with the C one of `ember_lua_install_print`, which formats the
    /// line as Lua's print does and offers it to ``printHandler`` (stdout when there is none).
    func installPrint() throws(LuaError) {
        guard lua_checkstack(state, 3) != 0 else {
            throw LuaError(.setup, message: "Lua stack overflow")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let status = ember_lua_install_print(state, Self.printEntry, context)
        guard status == LUA_OK else {
            throw popError(status: status, kind: .setup)
        }
    }

    /// The C entry point of `print`: hands the line to the handler of the state at `context`.
    /// Returns 0 (let C write to stdout) when the state has no handler.
    private static let printEntry: ember_lua_print_function = { context, line, length in
        guard let context else { return 0 }
        let lua = Unmanaged<LuaState>.fromOpaque(context).takeUnretainedValue()
        guard let handler = lua.printHandler else { return 0 }
        let text = line.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
        handler(text)
        return 1
    }
}

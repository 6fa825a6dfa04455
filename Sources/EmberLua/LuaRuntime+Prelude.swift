import EmberCore

/// The Lua half of the setup: methods written in Lua, the sandbox, and coroutines that pass
/// Ember's waits through.
extension LuaRuntime {
    /// Runs once with the real global table, the wait sentinel, the object metatables, the
    /// error object constructor (`new_error(code, message)`) and the `__index` maker
    /// (`make_index(methods, fields)`); returns the function that makes a
    /// script environment: `new_env(db, arg)`.
    ///
    /// - Each environment is a fresh table over a read-only base (`__index`; its metatable is
    ///   locked), with its own copies of the library tables, so a script that changes
    ///   `string.format` or `ember.exec` changes them for itself only. `_G` is the environment,
    ///   `db` the client, `arg` the script's arguments, and `load` compiles text only, into this
    ///   environment unless given another.
    /// - `getmetatable("")` is locked, so the shared string metatable cannot be reached.
    /// - `coroutine.resume`/`coroutine.wrap` pass a wait (a yield of the sentinel) on to the
    ///   coroutine around them, so `ref:get()` works inside a coroutine a script made.
    static let prelude = #"""
    local G, WAIT, metatables, new_error, make_index = ...
    local next, type, error, select, setmetatable, getmetatable = next, type, error, select, setmetatable, getmetatable
    local co_create, co_resume, co_yield, co_status, co_isyieldable =
        coroutine.create, coroutine.resume, coroutine.yield, coroutine.status, coroutine.isyieldable

    -- methods written in Lua
    local snapshot_methods = metatables.DataSnapshot.__methods
    local child_list = snapshot_methods.childList
    snapshot_methods.childList = nil
    function snapshot_methods.children(self)
      local list, i = child_list(self), 0
      return function()
        i = i + 1
        return list[i]
      end
    end
    function snapshot_methods.forEach(self, fn)
      local list = child_list(self)
      for i = 1, #list do
        if fn(list[i]) == true then return true end
      end
      return false
    end

    -- fields (ref.key) beside methods (ref:set)
    for _, mt in next, metatables do
      -- __methods and __fields stay: the REPL's completion reads them (it never calls __index)
      local methods, fields = mt.__methods, mt.__fields
      if next(fields) == nil then
        mt.__index = methods
      else
        -- methods[key], else fields[key](self), else nil: a C closure (LuaState.pushIndexMaker)
        mt.__index = make_index(methods, fields)
      end
    end

    -- coroutines made by scripts pass Ember's waits on to the coroutine that resumed them
    local function relay(co, ok, ...)
      if ok and (...) == WAIT and select("#", ...) == 1 and co_status(co) == "suspended" then
        if not co_isyieldable() then
          error(new_error("\#(ErrorCode.cannotWait)", "cannot wait here: this coroutine is resumed from code that cannot wait"), 0)
        end
        co_yield(WAIT)
        return relay(co, co_resume(co))
      end
      return ok, ...
    end
    local coroutine_library = {}
    for k, v in next, G.coroutine do coroutine_library[k] = v end
    coroutine_library.resume = function(co, ...) return relay(co, co_resume(co, ...)) end
    coroutine_library.wrap = function(fn)
      local co = co_create(fn)
      local function results(ok, ...)
        if not ok then error((...), 0) end
        return ...
      end
      return function(...) return results(relay(co, co_resume(co, ...))) end
    end

    -- the read-only base and the libraries each environment copies
    local libraries, base = {}, {}
    for k, v in next, G do
      if k ~= "_G" then
        if type(v) == "table" then libraries[k] = v else base[k] = v end
      end
    end
    libraries.coroutine = coroutine_library
    setmetatable(base, {
      __newindex = function(_, key) error("the base environment is read-only (" .. tostring(key) .. ")", 2) end,
      __metatable = false,
    })
    getmetatable("").__metatable = false

    local function copy(t, depth)
      local c = {}
      for k, v in next, t do
        if depth > 0 and type(v) == "table" then v = copy(v, depth - 1) end
        c[k] = v
      end
      return c
    end

    local base_load = G.load
    local environment_mt = { __index = base, __metatable = false }
    return function(db, arg)
      local env = setmetatable({}, environment_mt)
      for name, library in next, libraries do
        env[name] = copy(library, name == "ember" and 1 or 0)
      end
      env._G = env
      env.db = db
      env.arg = arg
      env.load = function(chunk, name, mode, e)
        if e == nil then e = env end
        return base_load(chunk, name, "t", e)
      end
      return env
    end
    """#
}

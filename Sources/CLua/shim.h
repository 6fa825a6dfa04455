/*
 * CLua: the system Lua 5.4 (Debian liblua5.4-dev, pkg-config lua5.4) for Swift.
 *
 * Swift imports real C functions and plain integer constants, but not function-like macros,
 * macros that expand to expressions (LUA_REGISTRYINDEX), or variadic functions (luaL_error,
 * lua_pushfstring). This header re-exposes the macros Ember needs as `static inline`
 * functions named `ember_lua_*` (for `lua_*`) and `ember_luaL_*` (for `luaL_*`).
 *
 * Only EmberLua imports this module. Raising APIs (lua_error, luaL_error, lua_call) are
 * deliberately absent: a longjmp must never cross a Swift frame. Code that must raise lives in
 * CLuaSupport, which runs it from a C frame.
 */
#ifndef EMBER_CLUA_SHIM_H
#define EMBER_CLUA_SHIM_H

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#if LUA_VERSION_NUM != 504
#error "Ember needs Lua 5.4 (liblua5.4-dev)"
#endif

/* MARK: pseudo-indices */

/** The pseudo-index of the registry (`LUA_REGISTRYINDEX`, an expression macro). */
static inline int ember_lua_registryindex(void) { return LUA_REGISTRYINDEX; }

/** The pseudo-index of upvalue `i` (1-based) of the running C function. */
static inline int ember_lua_upvalueindex(int i) { return lua_upvalueindex(i); }

/* MARK: calls and loading (protected: they return a status, they never raise) */

/** `lua_pcall`: calls the function below `nargs` arguments; `msgh` is a message handler index or 0. */
static inline int ember_lua_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcall(L, nargs, nresults, msgh);
}

/** `luaL_loadbuffer`: compiles `size` bytes as a text or binary chunk named `name`. */
static inline int ember_luaL_loadbuffer(lua_State *L, const char *buffer, size_t size, const char *name) {
    return luaL_loadbuffer(L, buffer, size, name);
}

/** `luaL_loadbufferx` restricted to text chunks (mode "t"): binary chunks are refused. */
static inline int ember_luaL_loadtext(lua_State *L, const char *buffer, size_t size, const char *name) {
    return luaL_loadbufferx(L, buffer, size, name, "t");
}

/* MARK: stack manipulation */

/** `lua_pop`: pops `n` values. */
static inline void ember_lua_pop(lua_State *L, int n) { lua_pop(L, n); }

/** `lua_insert`: moves the top value into `idx`, shifting the values above it up. */
static inline void ember_lua_insert(lua_State *L, int idx) { lua_insert(L, idx); }

/** `lua_remove`: removes the value at `idx`, shifting the values above it down. */
static inline void ember_lua_remove(lua_State *L, int idx) { lua_remove(L, idx); }

/** `lua_replace`: pops the top value into `idx`. */
static inline void ember_lua_replace(lua_State *L, int idx) { lua_replace(L, idx); }

/* MARK: pushing (may raise memory errors: call them only from a C frame or a protected call) */

/** `lua_newtable`: pushes an empty table. */
static inline void ember_lua_newtable(lua_State *L) { lua_newtable(L); }

/** `lua_pushcfunction`: pushes a light C function (no upvalues; never allocates). */
static inline void ember_lua_pushcfunction(lua_State *L, lua_CFunction f) { lua_pushcfunction(L, f); }

/** `lua_pushglobaltable`: pushes the global table. */
static inline void ember_lua_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }

/** `lua_newuserdata`: pushes a full userdata of `size` bytes with one user value. */
static inline void *ember_lua_newuserdata(lua_State *L, size_t size) { return lua_newuserdata(L, size); }

/* MARK: reading */

/** `lua_tostring`: the string at `idx`, or NULL. Converts a number in place: check the type first. */
static inline const char *ember_lua_tostring(lua_State *L, int idx) { return lua_tostring(L, idx); }

/** `lua_tonumber`: the number at `idx`, or 0 when it is not convertible. */
static inline lua_Number ember_lua_tonumber(lua_State *L, int idx) { return lua_tonumber(L, idx); }

/** `lua_tointeger`: the integer at `idx`, or 0 when it is not convertible without loss. */
static inline lua_Integer ember_lua_tointeger(lua_State *L, int idx) { return lua_tointeger(L, idx); }

/** `luaL_typename`: the name of the type of the value at `idx` ("nil", "table", ...). */
static inline const char *ember_luaL_typename(lua_State *L, int idx) { return luaL_typename(L, idx); }

/* MARK: type predicates */

/** `lua_isnil`. */
static inline int ember_lua_isnil(lua_State *L, int idx) { return lua_isnil(L, idx); }

/** `lua_isnone`: `idx` is not a valid stack position. */
static inline int ember_lua_isnone(lua_State *L, int idx) { return lua_isnone(L, idx); }

/** `lua_isnoneornil`. */
static inline int ember_lua_isnoneornil(lua_State *L, int idx) { return lua_isnoneornil(L, idx); }

/** `lua_isboolean`. */
static inline int ember_lua_isboolean(lua_State *L, int idx) { return lua_isboolean(L, idx); }

/** `lua_istable`. */
static inline int ember_lua_istable(lua_State *L, int idx) { return lua_istable(L, idx); }

/** `lua_isfunction`. */
static inline int ember_lua_isfunction(lua_State *L, int idx) { return lua_isfunction(L, idx); }

/** `lua_islightuserdata`. */
static inline int ember_lua_islightuserdata(lua_State *L, int idx) { return lua_islightuserdata(L, idx); }

/** `lua_isthread`. */
static inline int ember_lua_isthread(lua_State *L, int idx) { return lua_isthread(L, idx); }

/* MARK: the per-state extra space */

/** `lua_getextraspace`: the `LUA_EXTRASPACE` bytes (one pointer) reserved for the host. */
static inline void *ember_lua_getextraspace(lua_State *L) { return lua_getextraspace(L); }

#endif /* EMBER_CLUA_SHIM_H */

/*
 * CLuaSupport: the parts of Ember's Lua binding that must be real C.
 *
 * The rule this target exists for: a Lua error is a longjmp, and a longjmp must never cross a
 * Swift frame. Swift code therefore never raises a Lua error itself. A Swift function called from
 * Lua runs inside the C trampoline `ember_lua_call_swift`; it reports failure by pushing an error
 * value and returning `EMBER_LUA_CALL_ERROR`, and the trampoline raises it from its own C frame
 * after the Swift frame is gone. Anything else that can raise (opening libraries, creating
 * closures) is run by a protected call set up here and reported as a status code.
 *
 * Each state made by `ember_lua_open` carries a control block (in the state's extra space) with
 * an instruction limit, a memory limit and an interrupt request, enforced by a count hook and an
 * allocator written here. Only EmberLua imports this module.
 */
#ifndef EMBER_CLUA_SUPPORT_H
#define EMBER_CLUA_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>

/* MARK: calling Swift from Lua */

/** A Swift function callable from Lua: returns the number of results (>= 0) it pushed, or
    `EMBER_LUA_CALL_ERROR` after pushing the error value to raise. It must not raise itself. */
typedef int (*ember_lua_swift_function)(lua_State *L, void *context);

/** Returned by an `ember_lua_swift_function`: the error value is on top of the stack; raise it. */
#define EMBER_LUA_CALL_ERROR (-2)

/** The trampoline (a `lua_CFunction`): calls the Swift function held in its upvalue, then returns
    its results or raises its error from this C frame. A string error, or the message of an error
    object, gets the caller's `chunk:line: ` prefix, as `luaL_error` would add. Raises
    "interrupted" when an interrupt is pending before the call. */
int ember_lua_call_swift(lua_State *L);

/** Pushes a Lua function that calls `function(L, context)` through `ember_lua_call_swift`.
    Protected: returns `LUA_OK` with the function on top, or an error status with the error value
    on top. Needs 3 free stack slots. `context` is not retained: keep it alive with the state. */
int ember_lua_push_swift_function(lua_State *L, ember_lua_swift_function function, void *context);

/** Pops the value on top and stores it as the global `name`. Protected (a `__newindex` on the
    globals cannot longjmp past the caller): returns a status, with the error value on top on
    failure. Needs 3 free stack slots. */
int ember_lua_set_global(lua_State *L, const char *name);

/** Calls `function(L, context)` in protected mode as a host call: the memory limit is not
    enforced while it runs (as in `ember_lua_call_swift`), so the values Swift pushes fail only
    when the system itself is out of memory. The `nargs` values on top of the stack are its
    arguments (at 1...nargs in its frame). It returns like an `ember_lua_swift_function`: a
    result count, or `EMBER_LUA_CALL_ERROR` with the error value on top, which is raised from C.
    Returns the status of the protected call: on `LUA_OK` its results (adjusted to `nresults`,
    or all of them with `LUA_MULTRET`) replace the arguments; otherwise the error value does.
    Needs 2 free stack slots. */
int ember_lua_host_pcall(lua_State *L, ember_lua_swift_function function, void *context, int nargs,
                         int nresults);

/* MARK: registry references */

/** Pops the value on top and stores it in the registry (`luaL_ref`), in protected mode. Returns
    the status: on `LUA_OK`, `*ref` holds the reference; otherwise the error value is on top.
    Needs 2 free stack slots. */
int ember_lua_ref(lua_State *L, int *ref);

/** Releases a reference made by `ember_lua_ref` (`luaL_unref`), in protected mode; never raises.
    Does nothing for `LUA_NOREF`/`LUA_REFNIL`. */
void ember_lua_unref(lua_State *L, int ref);

/** Pushes the value stored under the reference `ref` (`lua_rawgeti` on the registry; never
    allocates). Returns its type. Needs 1 free stack slot. */
int ember_lua_push_ref(lua_State *L, int ref);

/** Pushes the state's global table (`lua_rawgeti` on the registry at `LUA_RIDX_GLOBALS`; never
    allocates, never raises). Needs 1 free stack slot. */
void ember_lua_push_globals(lua_State *L);

/* MARK: the ember table and ember.null */

/** Creates the state's `ember.null` sentinel and the global table `ember` (unless a table of
    that name already exists) holding it as `ember.null`, and the metatable of error objects (see
    `ember_lua_push_error`). Protected: returns a status, with the error value on top on failure.
    Needs 3 free stack slots.

    `ember.null` is a zero-size full userdata whose metatable (locked: `getmetatable` returns the
    string "ember.null") has `__name` and `__tostring` = "ember.null". Lua code cannot change or
    index it, so it is a unique read-only value; the registry keeps it alive whatever scripts do
    to the `ember` table. */
int ember_lua_open_ember(lua_State *L);

/** Pushes the state's `ember.null` sentinel (never allocates). Needs 1 free stack slot. */
void ember_lua_push_null(lua_State *L);

/** Whether the value at `idx` is the state's `ember.null` sentinel (never allocates, no stack). */
int ember_lua_is_null(lua_State *L, int idx);

/* MARK: error objects */

/** Pops the three values on top — the code (a string), the message (a string) and the path (a
    string, or nil) — and pushes an error object holding them. Allocates: call it only inside a
    Swift function called from Lua or a host call, where the memory limit is suspended.

    An error object is a full userdata whose metatable (locked: `getmetatable` returns the
    string "ember.error") has `__name` "ember.error", and:
    - `__index`: `err.code`, `err.message`, `err.path` read the fields (they cannot be changed);
      any other name of a string method (`err:find(...)`, `err:gsub(...)`) is that method applied
      to the message, so scripts written when errors were strings keep working;
    - `__tostring`: the message, so `print(err)` and `tostring(err)` show it;
    - `__concat`: `"failed: " .. err` concatenates the message.

    When a Swift function called through `ember_lua_call_swift` fails with an error object, the
    trampoline puts the caller's `chunk:line: ` in front of its message, as it does for strings. */
void ember_lua_push_error(lua_State *L);

/** Whether the value at `idx` is an error object (never allocates, no stack). */
int ember_lua_is_error(lua_State *L, int idx);

/** The field of an error object: 1 the code, 2 the message, 3 the path. */
#define EMBER_LUA_ERROR_CODE 1
#define EMBER_LUA_ERROR_MESSAGE 2
#define EMBER_LUA_ERROR_PATH 3

/** When the value at `idx` is an error object, pushes its field `field` (one of
    `EMBER_LUA_ERROR_*`) and returns its type; otherwise pushes nothing and returns `LUA_TNONE`.
    Never allocates. Needs 1 free stack slot. */
int ember_lua_push_error_field(lua_State *L, int idx, int field);

/** A `lua_CFunction`: `new_error(code, message [, path])` returns a new error object (for the
    Lua prelude, which raises Ember's own errors with it). */
int ember_lua_new_error(lua_State *L);

/* MARK: print */

/** Receives one line printed by Lua's `print` (without its newline; not NUL-terminated).
    Returns nonzero when it handled the line, 0 to let `print` write it to stdout itself. */
typedef int (*ember_lua_print_function)(void *context, const char *line, size_t length);

/** Replaces the global `print` with one that formats its arguments as Lua's print does
    (`tostring` of each, tab-separated) and hands the line to `function(context, ...)`; when that
    returns 0 it writes the line and a newline to stdout and flushes, as Lua's print does.
    Protected: returns a status, with the error value on top on failure. Needs 3 free stack
    slots. `context` is not retained: keep it alive with the state. */
int ember_lua_install_print(lua_State *L, ember_lua_print_function function, void *context);

/* MARK: states with limits */

/** Creates a state whose allocator counts bytes and refuses growth past `memory_limit` bytes
    (0: no limit) while Lua code runs, with a panic handler and the count hook installed.
    Returns NULL when even the empty state cannot be allocated. Close it with `ember_lua_close`. */
lua_State *ember_lua_open(size_t memory_limit);

/** Closes a state made by `ember_lua_open` and frees its control block. */
void ember_lua_close(lua_State *L);

/** Opens the standard libraries in protected mode. Safe set (`unsafe` == 0): base without
    `dofile`/`loadfile` and with a `load` restricted to text chunks, coroutine, table, string,
    math, utf8, and an `os` table holding only `time`, `clock` and `date`. Unsafe: every library
    (`luaL_openlibs`). Returns a status, with the error value on top on failure.

    In both, `setmetatable` wraps a metatable's `__gc` (once, in the metatable itself) so that
    the finalizer runs on a coroutine of its own: Lua runs finalizers with debug hooks off, which
    would put them beyond the instruction limit and the interrupt. Wrapped, they stop like any
    script code, also while `ember_lua_close` runs them, and nothing may wait in them
    (`ember_lua_can_wait`). A `__gc` put into a metatable after it was set, or set through
    `debug.setmetatable` (unsafe libraries), is not wrapped. */
int ember_lua_open_libraries(lua_State *L, int unsafe);

/** The message handler for `lua_pcall`: turns the error value into a string (through
    `__tostring` for non-strings) followed by "\nstack traceback:\n..." (`luaL_traceback`). */
int ember_lua_traceback(lua_State *L);

/** How many VM instructions run between two checks of the count hook. */
#define EMBER_LUA_HOOK_INTERVAL 1000

/** How many checks of the count hook pass between two calls of the state's service function
    (see `ember_lua_set_service`): about every 64,000 VM instructions. */
#define EMBER_LUA_SERVICE_INTERVAL 64

/** What the count hook calls now and then while Lua code runs (see `ember_lua_set_service`).
    It must not call Lua, raise, or wait. */
typedef void (*ember_lua_service_function)(void *context);

/** Sets the function the count hook calls every `EMBER_LUA_SERVICE_INTERVAL` checks while Lua
    code runs (NULL: none), with `context` (not retained): the host's chance to serve what must
    not wait for a long script, such as another process's reads. */
void ember_lua_set_service(lua_State *L, ember_lua_service_function function, void *context);

/** Sets how many VM instructions one run may execute (checked every
    `EMBER_LUA_HOOK_INTERVAL` instructions); 0 means no limit. */
void ember_lua_set_instruction_limit(lua_State *L, long long limit);

/** The instruction limit of the state (0: none). */
long long ember_lua_instruction_limit(lua_State *L);

/** Sets the memory limit in bytes (0: none). Lowering it below the current use makes every
    further growth fail until memory is freed. */
void ember_lua_set_memory_limit(lua_State *L, size_t limit);

/** The memory limit of the state in bytes (0: none). */
size_t ember_lua_memory_limit(lua_State *L);

/** The bytes currently allocated by the state. */
size_t ember_lua_memory_used(lua_State *L);

/* MARK: runs, interruption and the stop reason */

/** No limit stopped the run. */
#define EMBER_LUA_STOP_NONE 0
/** The run was interrupted (`ember_lua_request_interrupt`, or SIGINT when observed). */
#define EMBER_LUA_STOP_INTERRUPTED 1
/** The run exceeded its instruction limit. */
#define EMBER_LUA_STOP_INSTRUCTION_LIMIT 2

/** Starts a run. An outermost run starts the instruction count from zero; a run nested in a
    Swift function (called from Lua) shares the budget of the run around it, and has the memory
    limit enforced again while it runs. Returns a token to give to `ember_lua_end_run`. */
int ember_lua_begin_run(lua_State *L);

/** Ends the run started with `token`. Ending the outermost run clears the stop reason and the
    interrupt request, and puts the count hook of the main thread back to its normal interval; a
    nested run leaves them, so a stop reaches the runs around it too. */
void ember_lua_end_run(lua_State *L, int token);

/** Why the current run was stopped: one of the `EMBER_LUA_STOP_*` values. Once a run is stopped,
    the hook raises again at every instruction, so Lua code cannot `pcall` its way past it. */
int ember_lua_stop_reason(lua_State *L);

/** Asks the running code to stop with the error "interrupted". Async-signal-safe and callable
    from any thread; stays requested until `ember_lua_end_run`. */
void ember_lua_request_interrupt(lua_State *L);

/** Whether the state also stops when the process received SIGINT (the shell's Ctrl-C; the flag
    lives in CInterrupt). */
void ember_lua_observe_sigint(lua_State *L, int observe);

/* MARK: waiting: Swift functions that yield */

/** Returned by an `ember_lua_swift_function` (called through `ember_lua_call_swift`) that started
    a wait: the trampoline yields the wait sentinel (see `ember_lua_push_wait_sentinel`) from its
    own C frame. When the coroutine is resumed, the state's continuation (see
    `ember_lua_set_continuation`) is called with the ticket given to `ember_lua_set_yield_ticket`
    before returning; it pushes the results (or the error) and returns like an
    `ember_lua_swift_function`, which may be `EMBER_LUA_CALL_AWAIT` again. The function must only
    return this when `lua_isyieldable(L)`. */
#define EMBER_LUA_CALL_AWAIT (-3)

/** Returned by an `ember_lua_swift_function` that pushed its results (how many: the ticket given
    to `ember_lua_set_yield_ticket`) and wants the host to run queued work before the caller sees
    them: the trampoline yields the wait sentinel, and returns the results when resumed. The
    function must only return this when `lua_isyieldable(L)`. */
#define EMBER_LUA_CALL_RETURN_AFTER_YIELD (-4)

/** Called when a coroutine that yielded with `EMBER_LUA_CALL_AWAIT` is resumed: pushes the wait's
    results and returns their count, or `EMBER_LUA_CALL_ERROR` with the error value on top. */
typedef int (*ember_lua_continuation_function)(lua_State *L, void *context, intptr_t ticket);

/** Sets the state's continuation for `EMBER_LUA_CALL_AWAIT`. `context` is not retained. */
void ember_lua_set_continuation(lua_State *L, ember_lua_continuation_function function, void *context);

/** Sets the ticket the next `EMBER_LUA_CALL_AWAIT` or `EMBER_LUA_CALL_RETURN_AFTER_YIELD` uses. */
void ember_lua_set_yield_ticket(lua_State *L, intptr_t ticket);

/** Pushes the wait sentinel: the light userdata every Ember wait yields (never allocates). Lua
    code that resumes coroutines itself passes a yield of this value on to its own resumer. */
void ember_lua_push_wait_sentinel(lua_State *L);

/** `make_index(methods, fields)`, for the prelude: returns the `__index` of an object type with
    fields beside its methods, a C closure over the two tables that returns `methods[key]` when it
    is not nil, else `fields[key](object)` when there is such a field, else nil. It does in C
    what a Lua function did, without that function's instructions and the count hook between
    them on every method call (`ref:set`, `ref:child`); a field may still wait. */
int ember_lua_make_index(lua_State *L);

/** Whether the value at `idx` is the wait sentinel. */
int ember_lua_is_wait_sentinel(lua_State *L, int idx);

/** Creates a coroutine (a new thread of `L`), in protected mode: on `LUA_OK` the thread is on top
    of `L`'s stack and `*thread` points to it; otherwise the error value is on top. */
int ember_lua_new_thread(lua_State *L, lua_State **thread);

/** Replaces the error value on top of `L`'s stack (from a failed `lua_resume` of `thread`) with
    a string: its message (through `__tostring` for non-strings), then "\nstack traceback:\n" and
    the traceback of `thread`, whose stack is still the one of the error. Protected: on failure
    the top is a plain message. Needs 4 free stack slots. */
void ember_lua_thread_error(lua_State *L, lua_State *thread);

/** Whether a Swift function may wait (return `EMBER_LUA_CALL_AWAIT` or
    `EMBER_LUA_CALL_RETURN_AFTER_YIELD`) here: the running thread can yield, and no script
    finalizer is running. */
int ember_lua_can_wait(lua_State *L);

/** Whether an interrupt is pending for the state (`ember_lua_request_interrupt`, or SIGINT when
    observed), whether or not code is running. */
int ember_lua_interrupt_pending(lua_State *L);

/** Clears an interrupt request made while no code was running. */
void ember_lua_clear_interrupt(lua_State *L);

/* MARK: objects: Swift objects as full userdata */

/** How many object types a state can define (type numbers are 0 ..< this). */
#define EMBER_LUA_OBJECT_TYPES 16

/** Releases a retained Swift object whose userdata was collected (`__gc`) or closed. */
typedef void (*ember_lua_release_function)(void *object);

/** Sets the function `__gc` of every object type calls. */
void ember_lua_set_release_function(lua_State *L, ember_lua_release_function function);

/** Pops the table on top and makes it the metatable of object type `type`, adding `__gc` (which
    releases the object) and `__metatable` (= `__name`, so scripts cannot change it). Protected:
    returns a status, with the error value on top on failure. Needs 3 free stack slots. */
int ember_lua_define_type(lua_State *L, int type);

/** Pushes a new userdata holding `object` (a retained Swift object, released by `__gc`) with
    the metatable of `type`. Allocates: call it only inside a Swift function called from Lua or
    a host call, where the memory limit is suspended. */
void ember_lua_push_object(lua_State *L, int type, void *object);

/** The object held by the userdata at `idx` when it is of type `type`, else NULL (never raises
    nor allocates). */
void *ember_lua_to_object(lua_State *L, int idx, int type);

/** Pushes the metatable of object type `type` (nil when not defined; never allocates). */
int ember_lua_push_type_metatable(lua_State *L, int type);


#endif /* EMBER_CLUA_SUPPORT_H */

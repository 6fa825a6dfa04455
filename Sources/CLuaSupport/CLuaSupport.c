/*
 * CLuaSupport: see include/CLuaSupport.h for the contract of each function.
 *
 * Everything that raises a Lua error (lua_error, luaL_error, memory errors while building
 * values) happens in a C frame of this file, or inside a protected call started here.
 */
#include "CLuaSupport.h"
#include "CInterrupt.h"

#include <lauxlib.h>
#include <lualib.h>

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MARK: the control block */

/** Per-state settings and accounting, reached through the state's extra space (which every
    thread of the state, coroutines included, inherits from the main thread). */
struct ember_lua_control {
    /** Set by `ember_lua_request_interrupt`, possibly from another thread or a signal handler. */
    atomic_int interrupt_requested;
    /** Whether the process-wide SIGINT flag also interrupts this state. */
    int observes_sigint;
    /** One of EMBER_LUA_STOP_*: once set, the hook raises at every instruction. */
    int stop_reason;
    /** Instructions allowed per run (0: no limit) and used so far in this run. */
    long long instruction_limit;
    long long instructions_used;
    /** Bytes allowed (0: no limit) and allocated. */
    size_t memory_limit;
    size_t memory_used;
    /** How many Swift callbacks are running: the memory limit is not enforced inside them, so
        that a push from Swift never fails on the limit (that failure would longjmp over Swift). */
    int host_calls;
    /** How many runs are in progress (more than one when a Swift function runs Lua code). */
    int run_depth;
    /** The address of the `ember.null` userdata (see `ember_lua_open_ember`), or NULL. */
    const void *null_sentinel;
    /** What a resumed `EMBER_LUA_CALL_AWAIT` calls, and its context. */
    ember_lua_continuation_function continuation;
    void *continuation_context;
    /** The ticket of the next yield (see `ember_lua_set_yield_ticket`). */
    intptr_t yield_ticket;
    /** What `__gc` of an object calls. */
    ember_lua_release_function release;
    /** How many script finalizers (`__gc` set by scripts) are running: nothing may wait in them. */
    int finalizer_depth;
    /** What the count hook calls every EMBER_LUA_SERVICE_INTERVAL checks (NULL: nothing), its
        context, and the checks since the last call. */
    ember_lua_service_function service;
    void *service_context;
    int service_checks;
};

/** The address whose light userdata every Ember wait yields (never written). */
static const char wait_sentinel_key = 0;

/** The addresses whose light userdata are the registry keys of the object metatables. */
static const char object_type_keys[EMBER_LUA_OBJECT_TYPES] = {0};

/** The address whose light userdata is the registry key of `ember.null` (never written). */
static const char null_registry_key = 0;

/** The address whose light userdata is the registry key of the error objects' metatable. */
static const char error_registry_key = 0;


static struct ember_lua_control *control_of(lua_State *L) {
    return *(struct ember_lua_control **)lua_getextraspace(L);
}

static int interrupt_pending(const struct ember_lua_control *control) {
    if (atomic_load_explicit(&control->interrupt_requested, memory_order_relaxed)) return 1;
    return control->observes_sigint && ember_sigint_pending();
}

/* MARK: the allocator */

/** A `lua_Alloc` that accounts bytes in the control block and denies growth over the limit.
    It never fails a shrink (the old block is kept if `realloc` declines). */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    struct ember_lua_control *control = ud;
    size_t old = ptr != NULL ? osize : 0; /* when ptr is NULL, osize encodes a type, not a size */
    if (nsize == 0) {
        free(ptr);
        control->memory_used = control->memory_used >= old ? control->memory_used - old : 0;
        return NULL;
    }
    if (nsize > old && control->memory_limit > 0 && control->host_calls == 0) {
        size_t growth = nsize - old;
        if (control->memory_used > control->memory_limit
            || growth > control->memory_limit - control->memory_used) {
            return NULL;
        }
    }
    void *block = realloc(ptr, nsize);
    if (block == NULL) {
        return nsize <= old ? ptr : NULL;
    }
    control->memory_used = (control->memory_used >= old ? control->memory_used - old : 0) + nsize;
    return block;
}

/** Called on an error outside any protected call: nothing sane can continue. */
static int panic(lua_State *L) {
    const char *message = lua_tostring(L, -1);
    fprintf(stderr, "ember: unprotected Lua error: %s\n", message != NULL ? message : "(not a string)");
    fflush(stderr);
    return 0; /* Lua aborts the process */
}

/* MARK: the count hook */

/** Raises `message` at the current line of the running Lua function. */
static int raise_stop(lua_State *L, const char *message) {
    luaL_where(L, 0);
    lua_pushstring(L, message);
    lua_concat(L, 2);
    return lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    struct ember_lua_control *control = control_of(L);
    if (control == NULL) return;
    if (control->stop_reason == EMBER_LUA_STOP_NONE) {
        int count = lua_gethookcount(L);
        if (count != EMBER_LUA_HOOK_INTERVAL) {
            /* left at every instruction by a previous stopped run on this thread */
            lua_sethook(L, count_hook, LUA_MASKCOUNT, EMBER_LUA_HOOK_INTERVAL);
        }
        if (interrupt_pending(control)) {
            control->stop_reason = EMBER_LUA_STOP_INTERRUPTED;
        } else if (control->instruction_limit > 0) {
            control->instructions_used += count;
            if (control->instructions_used > control->instruction_limit) {
                control->stop_reason = EMBER_LUA_STOP_INSTRUCTION_LIMIT;
            }
        }
    }
    if (control->stop_reason == EMBER_LUA_STOP_NONE && control->service != NULL &&
        ++control->service_checks >= EMBER_LUA_SERVICE_INTERVAL) {
        control->service_checks = 0;
        control->service(control->service_context);
    }
    switch (control->stop_reason) {
    case EMBER_LUA_STOP_INTERRUPTED:
        lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
        raise_stop(L, "interrupted");
        break;
    case EMBER_LUA_STOP_INSTRUCTION_LIMIT: {
        char message[96];
        snprintf(message, sizeof message, "instruction limit exceeded (%lld instructions)",
                 control->instruction_limit);
        lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
        raise_stop(L, message);
        break;
    }
    default:
        break;
    }
}

/* MARK: states */

lua_State *ember_lua_open(size_t memory_limit) {
    struct ember_lua_control *control = calloc(1, sizeof *control);
    if (control == NULL) return NULL;
    atomic_init(&control->interrupt_requested, 0);
    control->memory_limit = memory_limit;
    lua_State *L = lua_newstate(limited_alloc, control);
    if (L == NULL) {
        free(control);
        return NULL;
    }
    *(struct ember_lua_control **)lua_getextraspace(L) = control;
    lua_atpanic(L, panic);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, EMBER_LUA_HOOK_INTERVAL);
    return L;
}

void ember_lua_close(lua_State *L) {
    if (L == NULL) return;
    struct ember_lua_control *control = control_of(L);
    lua_close(L); /* still allocates through the control block */
    free(control);
}

void ember_lua_set_instruction_limit(lua_State *L, long long limit) {
    control_of(L)->instruction_limit = limit > 0 ? limit : 0;
}

long long ember_lua_instruction_limit(lua_State *L) { return control_of(L)->instruction_limit; }

void ember_lua_set_memory_limit(lua_State *L, size_t limit) { control_of(L)->memory_limit = limit; }

size_t ember_lua_memory_limit(lua_State *L) { return control_of(L)->memory_limit; }

size_t ember_lua_memory_used(lua_State *L) { return control_of(L)->memory_used; }

int ember_lua_begin_run(lua_State *L) {
    struct ember_lua_control *control = control_of(L);
    if (control->run_depth++ == 0) control->instructions_used = 0;
    int token = control->host_calls; /* the Swift callbacks around this run */
    control->host_calls = 0;         /* Lua code runs again: enforce the memory limit */
    return token;
}

void ember_lua_end_run(lua_State *L, int token) {
    struct ember_lua_control *control = control_of(L);
    control->host_calls = token;
    if (control->run_depth > 0 && --control->run_depth > 0) return;
    control->stop_reason = EMBER_LUA_STOP_NONE;
    control->instructions_used = 0;
    atomic_store_explicit(&control->interrupt_requested, 0, memory_order_relaxed);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, EMBER_LUA_HOOK_INTERVAL);
}

int ember_lua_stop_reason(lua_State *L) { return control_of(L)->stop_reason; }

void ember_lua_request_interrupt(lua_State *L) {
    atomic_store_explicit(&control_of(L)->interrupt_requested, 1, memory_order_relaxed);
}

void ember_lua_observe_sigint(lua_State *L, int observe) { control_of(L)->observes_sigint = observe != 0; }

/* MARK: libraries */

/** `load`, restricted to text chunks: calls the original `load` (upvalue 1) with mode "t". */
static int load_text_only(lua_State *L) {
    int given = lua_gettop(L);
    if (given < 2) lua_settop(L, 2);        /* chunk, chunkname (nil means the default) */
    lua_pushliteral(L, "t");
    if (given >= 3) lua_replace(L, 3);      /* keep env (argument 4) when it was given */
    else lua_insert(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/* MARK: script finalizers */

/** A script's `__gc` (upvalue 1), run as Lua runs it but on a coroutine of its own: Lua calls
    finalizers with every debug hook off, so the script's function would escape the instruction
    limit and the interrupt; on a new thread the count hook is back. Argument 1 is the object. A
    finalizer that runs outside any run (at close, or from a collection a host call started) is a
    run of its own, with a fresh instruction budget; inside a run it shares that run's budget, and
    a stop reaches the run. Errors are raised, and Lua turns them into warnings. */
static int run_finalizer(lua_State *L) {
    struct ember_lua_control *control = control_of(L);
    lua_State *thread = lua_newthread(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 1);
    lua_xmove(L, thread, 2);
    int run = ember_lua_begin_run(L);
    control->finalizer_depth++;
    int results = 0;
    int status = lua_resume(thread, L, 1, &results);
    control->finalizer_depth--;
    ember_lua_end_run(L, run);
    /* inside a run, a stop also stops the code the collection interrupted, at once */
    if (control->stop_reason != EMBER_LUA_STOP_NONE) lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    if (status == LUA_OK) return 0;
    if (status == LUA_YIELD) return luaL_error(L, "a __gc finalizer cannot yield");
    lua_xmove(thread, L, 1);
    return lua_error(L);
}

/** Replaces the `__gc` field of the metatable at `idx`, when it has one, by `run_finalizer`
    around it (once: a field that is already wrapped stays). */
static void guard_finalizer(lua_State *L, int idx) {
    lua_pushliteral(L, "__gc");
    int type = lua_rawget(L, idx);
    if (type == LUA_TNIL || (type == LUA_TFUNCTION && lua_tocfunction(L, -1) == run_finalizer)) {
        lua_pop(L, 1);
        return;
    }
    lua_pushcclosure(L, run_finalizer, 1);
    lua_pushliteral(L, "__gc");
    lua_insert(L, -2);
    lua_rawset(L, idx);
}

/** `setmetatable` as the base library has it, but a `__gc` in the new metatable runs through
    `run_finalizer`, under the limits and the interrupt like any other script code. */
static int guarded_setmetatable(lua_State *L) {
    int type = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, type == LUA_TNIL || type == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    if (type == LUA_TTABLE) guard_finalizer(L, 2);
    lua_setmetatable(L, 1); /* marks the table for finalization when the metatable has __gc */
    return 1;
}

static int open_libraries(lua_State *L) {
    int unsafe = lua_toboolean(L, 1);
    lua_settop(L, 0);
    if (unsafe) {
        luaL_openlibs(L);
        lua_pushcfunction(L, guarded_setmetatable);
        lua_setglobal(L, "setmetatable");
        return 0;
    }
    static const luaL_Reg safe[] = {
        {LUA_GNAME, luaopen_base},         {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_TABLIBNAME, luaopen_table},   {LUA_STRLIBNAME, luaopen_string},
        {LUA_MATHLIBNAME, luaopen_math},   {LUA_UTF8LIBNAME, luaopen_utf8},
        {NULL, NULL},
    };
    for (const luaL_Reg *lib = safe; lib->func != NULL; lib++) {
        luaL_requiref(L, lib->name, lib->func, 1);
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    lua_setglobal(L, "dofile");
    lua_pushnil(L);
    lua_setglobal(L, "loadfile");
    lua_getglobal(L, "load");
    lua_pushcclosure(L, load_text_only, 1);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, guarded_setmetatable);
    lua_setglobal(L, "setmetatable");

    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0); /* the full library, not made global */
    lua_createtable(L, 0, 3);
    static const char *const os_kept[] = {"time", "clock", "date", NULL};
    for (const char *const *name = os_kept; *name != NULL; name++) {
        lua_getfield(L, -2, *name);
        lua_setfield(L, -2, *name);
    }
    lua_setglobal(L, LUA_OSLIBNAME);
    lua_pop(L, 1);
    return 0;
}

int ember_lua_open_libraries(lua_State *L, int unsafe) {
    lua_pushcfunction(L, open_libraries);
    lua_pushboolean(L, unsafe);
    return lua_pcall(L, 1, 0, 0);
}

/* MARK: the message handler */

/** The error value at index 1 as a message: a string, its `__tostring`, or its type (may push).
    The `__tostring` runs protected: when it fails or returns something else than a string, the
    message says so instead. */
static const char *error_message(lua_State *L) {
    const char *message = lua_tostring(L, 1);
    if (message != NULL) return message;
    const char *type = luaL_typename(L, 1);
    if (luaL_getmetafield(L, 1, "__tostring") == LUA_TNIL) {
        return lua_pushfstring(L, "(error object is a %s value)", type);
    }
    lua_pushvalue(L, 1);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
        const char *why = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
        return lua_pushfstring(L, "(error object is a %s value; its __tostring failed: %s)", type, why);
    }
    if (lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
    return lua_pushfstring(L, "(error object is a %s value; its __tostring returned a %s)", type, luaL_typename(L, -1));
}

int ember_lua_traceback(lua_State *L) {
    luaL_traceback(L, L, error_message(L), 1);
    return 1;
}

/* MARK: Swift functions */

/** What the trampoline's upvalue holds. */
struct swift_closure {
    ember_lua_swift_function function;
    void *context;
};

static int finish_swift_call(lua_State *L, int status);
static int raise_error(lua_State *L, const char *code, const char *message);
static int continue_await(lua_State *L, int status, lua_KContext context);
static int continue_return(lua_State *L, int status, lua_KContext context);

int ember_lua_call_swift(lua_State *L) {
    const struct swift_closure *closure = lua_touserdata(L, lua_upvalueindex(1));
    if (closure == NULL) return luaL_error(L, "ember: a Swift function lost its closure");
    struct ember_lua_control *control = control_of(L);
    if (control != NULL && control->stop_reason == EMBER_LUA_STOP_NONE && interrupt_pending(control)) {
        control->stop_reason = EMBER_LUA_STOP_INTERRUPTED;
        lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    }
    if (control != NULL && control->stop_reason == EMBER_LUA_STOP_INTERRUPTED) {
        return luaL_error(L, "interrupted");
    }

    if (control != NULL) control->host_calls++;
    int status = closure->function(L, closure->context);
    if (control != NULL) control->host_calls--;
    /* the Swift frame is gone: raising is safe from here on */
    return finish_swift_call(L, status);
}

/** Returns the results of a Swift function that returned `status`, or raises its error. */
static int finish_swift_call(lua_State *L, int status) {
    if (status >= 0) {
        if (status > lua_gettop(L)) {
            return luaL_error(L, "ember: a Swift function returned %d results but pushed %d", status,
                              lua_gettop(L));
        }
        return status;
    }
    if (status == EMBER_LUA_CALL_AWAIT || status == EMBER_LUA_CALL_RETURN_AFTER_YIELD) {
        struct ember_lua_control *control = control_of(L);
        if (!ember_lua_can_wait(L)) return raise_error(L, "cannot_wait", "ember: cannot wait here (not in a coroutine)");
        intptr_t ticket = control->yield_ticket;
        lua_pushlightuserdata(L, (void *)&wait_sentinel_key);
        if (status == EMBER_LUA_CALL_AWAIT) return lua_yieldk(L, 1, (lua_KContext)ticket, continue_await);
        /* the results sit below the sentinel: remember where they start and how many there are */
        int count = (int)ticket;
        int first = lua_gettop(L) - count; /* the sentinel is on top */
        return lua_yieldk(L, 1, (lua_KContext)(((intptr_t)first << 16) | count), continue_return);
    }
    if (status == EMBER_LUA_CALL_ERROR) {
        if (lua_gettop(L) == 0) return raise_error(L, "internal_error", "ember: a Swift function failed without an error value");
        if (lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        } else if (ember_lua_is_error(L, -1)) {
            /* error | where | message -> error with "where message" */
            luaL_where(L, 1);
            lua_getiuservalue(L, -2, EMBER_LUA_ERROR_MESSAGE);
            lua_concat(L, 2);
            lua_setiuservalue(L, -2, EMBER_LUA_ERROR_MESSAGE);
        }
        return lua_error(L);
    }
    return luaL_error(L, "ember: a Swift function returned the invalid status %d", status);
}

/** Resumes a Swift function that awaited: asks the host for the wait's results. */
static int continue_await(lua_State *L, int status, lua_KContext context) {
    (void)status;
    struct ember_lua_control *control = control_of(L);
    if (control->continuation == NULL) return luaL_error(L, "ember: no continuation for a wait");
    control->host_calls++;
    int result = control->continuation(L, control->continuation_context, (intptr_t)context);
    control->host_calls--;
    return finish_swift_call(L, result);
}

/** Resumes a Swift function that yielded after pushing its results: returns them. */
static int continue_return(lua_State *L, int status, lua_KContext context) {
    (void)status;
    int count = (int)(context & 0xFFFF);
    int first = (int)(context >> 16);
    lua_settop(L, first + count - 1); /* drop whatever the resume passed */
    return count;
}

/** The function `ember_lua_host_pcall` calls: argument 1 is the closure spec (a light userdata). */
static int host_call(lua_State *L) {
    struct swift_closure closure = *(const struct swift_closure *)lua_touserdata(L, 1);
    lua_remove(L, 1);
    struct ember_lua_control *control = control_of(L);
    if (control != NULL) control->host_calls++;
    int status = closure.function(L, closure.context);
    if (control != NULL) control->host_calls--;
    return finish_swift_call(L, status);
}

int ember_lua_host_pcall(lua_State *L, ember_lua_swift_function function, void *context, int nargs,
                         int nresults) {
    struct swift_closure spec = {function, context};
    lua_pushcfunction(L, host_call);
    lua_insert(L, -(nargs + 1));
    lua_pushlightuserdata(L, &spec);
    lua_insert(L, -(nargs + 1));
    return lua_pcall(L, nargs + 1, nresults, 0);
}

static int make_swift_function(lua_State *L) {
    const struct swift_closure *spec = lua_touserdata(L, 1);
    struct swift_closure *closure = lua_newuserdatauv(L, sizeof *closure, 0);
    *closure = *spec;
    lua_pushcclosure(L, ember_lua_call_swift, 1);
    return 1;
}

int ember_lua_push_swift_function(lua_State *L, ember_lua_swift_function function, void *context) {
    struct swift_closure spec = {function, context};
    lua_pushcfunction(L, make_swift_function);
    lua_pushlightuserdata(L, &spec);
    return lua_pcall(L, 1, 1, 0);
}

static int set_global(lua_State *L) {
    const char *name = lua_touserdata(L, 1);
    lua_pushvalue(L, 2);
    lua_setglobal(L, name);
    return 0;
}

int ember_lua_set_global(lua_State *L, const char *name) {
    lua_pushcfunction(L, set_global);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, (void *)name);
    lua_insert(L, -2);
    return lua_pcall(L, 2, 0, 0);
}

/* MARK: registry references */

static int make_ref(lua_State *L) {
    int ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushinteger(L, ref);
    return 1;
}

int ember_lua_ref(lua_State *L, int *ref) {
    *ref = LUA_NOREF;
    lua_pushcfunction(L, make_ref);
    lua_insert(L, -2);
    int status = lua_pcall(L, 1, 1, 0);
    if (status != LUA_OK) return status;
    *ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    return LUA_OK;
}

static int release_ref(lua_State *L) {
    luaL_unref(L, LUA_REGISTRYINDEX, (int)lua_tointeger(L, 1));
    return 0;
}

void ember_lua_unref(lua_State *L, int ref) {
    if (ref == LUA_NOREF || ref == LUA_REFNIL) return;
    if (!lua_checkstack(L, 2)) return; /* leaks one slot rather than failing */
    lua_pushcfunction(L, release_ref);
    lua_pushinteger(L, ref);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) lua_pop(L, 1);
}

int ember_lua_push_ref(lua_State *L, int ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }

void ember_lua_push_globals(lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS); }

/* MARK: the ember table and ember.null */

static int null_tostring(lua_State *L) {
    lua_pushliteral(L, "ember.null");
    return 1;
}

/* MARK: error objects */

static int error_tostring(lua_State *L) {
    lua_getiuservalue(L, 1, EMBER_LUA_ERROR_MESSAGE);
    return 1;
}

/** A string method called on an error object: the method (upvalue 1) gets the message as self. */
static int error_string_method(lua_State *L) {
    if (ember_lua_is_error(L, 1)) {
        lua_getiuservalue(L, 1, EMBER_LUA_ERROR_MESSAGE);
        lua_replace(L, 1);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static int error_index(lua_State *L) {
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    const char *key = lua_tostring(L, 2);
    if (strcmp(key, "code") == 0) return lua_getiuservalue(L, 1, EMBER_LUA_ERROR_CODE), 1;
    if (strcmp(key, "message") == 0) return lua_getiuservalue(L, 1, EMBER_LUA_ERROR_MESSAGE), 1;
    if (strcmp(key, "path") == 0) return lua_getiuservalue(L, 1, EMBER_LUA_ERROR_PATH), 1;
    /* the string library, through the shared string metatable */
    lua_pushliteral(L, "");
    if (!lua_getmetatable(L, -1) || lua_getfield(L, -1, "__index") != LUA_TTABLE) return 0;
    if (lua_getfield(L, -1, key) != LUA_TFUNCTION) return 0;
    lua_pushcclosure(L, error_string_method, 1);
    return 1;
}

static int error_concat(lua_State *L) {
    for (int i = 1; i <= 2; i++) {
        if (ember_lua_is_error(L, i)) {
            lua_getiuservalue(L, i, EMBER_LUA_ERROR_MESSAGE);
            lua_replace(L, i);
        } else if (!lua_isstring(L, i)) {
            return luaL_error(L, "attempt to concatenate a %s value", luaL_typename(L, i));
        }
    }
    lua_concat(L, 2);
    return 1;
}

/** Creates the metatable of error objects and keeps it in the registry. */
static void open_errors(lua_State *L) {
    lua_createtable(L, 0, 5);
    lua_pushliteral(L, "ember.error");
    lua_setfield(L, -2, "__name");
    lua_pushliteral(L, "ember.error");
    lua_setfield(L, -2, "__metatable");
    lua_pushcfunction(L, error_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, error_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, error_concat);
    lua_setfield(L, -2, "__concat");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &error_registry_key);
}

void ember_lua_push_error(lua_State *L) {
    /* stack: code | message | path */
    if (!lua_isstring(L, -3)) {
        lua_pushliteral(L, "internal_error");
        lua_replace(L, -4);
    }
    if (!lua_isstring(L, -2)) {
        lua_pushliteral(L, "(no message)");
        lua_replace(L, -3);
    }
    lua_newuserdatauv(L, 0, 3);
    lua_insert(L, -4);
    /* stack: error | code | message | path */
    lua_setiuservalue(L, -4, EMBER_LUA_ERROR_PATH);
    lua_setiuservalue(L, -3, EMBER_LUA_ERROR_MESSAGE);
    lua_setiuservalue(L, -2, EMBER_LUA_ERROR_CODE);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &error_registry_key);
    lua_setmetatable(L, -2);
}

int ember_lua_is_error(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_checkstack(L, 2)) return 0;
    if (!lua_getmetatable(L, idx)) return 0;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &error_registry_key);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

int ember_lua_push_error_field(lua_State *L, int idx, int field) {
    if (field < EMBER_LUA_ERROR_CODE || field > EMBER_LUA_ERROR_PATH || !ember_lua_is_error(L, idx)) return LUA_TNONE;
    return lua_getiuservalue(L, idx, field);
}

int ember_lua_new_error(lua_State *L) {
    luaL_checkstring(L, 1);
    luaL_checkstring(L, 2);
    lua_settop(L, 3);
    if (!lua_isstring(L, 3)) {
        lua_pushnil(L);
        lua_replace(L, 3);
    }
    ember_lua_push_error(L);
    return 1;
}

/** Raises a new error object with `code` (one of Swift's `ErrorCode`: `cannot_wait`,
    `internal_error`) and `message`, after the caller's `chunk:line: `. */
static int raise_error(lua_State *L, const char *code, const char *message) {
    lua_pushstring(L, code);
    luaL_where(L, 1);
    lua_pushstring(L, message);
    lua_concat(L, 2);
    lua_pushnil(L);
    ember_lua_push_error(L);
    return lua_error(L);
}

static int open_ember(lua_State *L) {
    lua_newuserdatauv(L, 0, 0);
    luaL_newmetatable(L, "ember.null"); /* sets __name */
    lua_pushcfunction(L, null_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "ember.null");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &null_registry_key);
    control_of(L)->null_sentinel = lua_topointer(L, -1);

    if (lua_getglobal(L, "ember") != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setglobal(L, "ember");
    }
    lua_insert(L, -2);
    lua_setfield(L, -2, "null");
    lua_pop(L, 1);
    open_errors(L);
    return 0;
}

int ember_lua_open_ember(lua_State *L) {
    lua_pushcfunction(L, open_ember);
    return lua_pcall(L, 0, 0, 0);
}

void ember_lua_push_null(lua_State *L) { lua_rawgetp(L, LUA_REGISTRYINDEX, &null_registry_key); }

int ember_lua_is_null(lua_State *L, int idx) {
    const void *sentinel = control_of(L)->null_sentinel;
    return sentinel != NULL && lua_type(L, idx) == LUA_TUSERDATA && lua_topointer(L, idx) == sentinel;
}

/* MARK: print */

/** What the upvalue of the replacement `print` holds. */
struct print_closure {
    ember_lua_print_function function;
    void *context;
};

/** The replacement `print`: formats like Lua's print, then hands the line to the host. */
static int print_line(lua_State *L) {
    const struct print_closure *closure = lua_touserdata(L, lua_upvalueindex(1));
    int count = lua_gettop(L);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    for (int i = 1; i <= count; i++) {
        if (i > 1) luaL_addchar(&buffer, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&buffer);
    }
    luaL_pushresult(&buffer);
    size_t length = 0;
    const char *line = lua_tolstring(L, -1, &length);

    struct ember_lua_control *control = control_of(L);
    if (control != NULL) control->host_calls++;
    int handled = closure->function(closure->context, line, length);
    if (control != NULL) control->host_calls--;
    if (!handled) {
        lua_writestring(line, length);
        lua_writeline();
    }
    return 0;
}

static int install_print(lua_State *L) {
    const struct print_closure *spec = lua_touserdata(L, 1);
    struct print_closure *closure = lua_newuserdatauv(L, sizeof *closure, 0);
    *closure = *spec;
    lua_pushcclosure(L, print_line, 1);
    lua_setglobal(L, "print");
    return 0;
}

int ember_lua_install_print(lua_State *L, ember_lua_print_function function, void *context) {
    struct print_closure spec = {function, context};
    lua_pushcfunction(L, install_print);
    lua_pushlightuserdata(L, &spec);
    return lua_pcall(L, 1, 0, 0);
}

/* MARK: waiting */

void ember_lua_set_continuation(lua_State *L, ember_lua_continuation_function function, void *context) {
    struct ember_lua_control *control = control_of(L);
    control->continuation = function;
    control->continuation_context = context;
}

void ember_lua_set_service(lua_State *L, ember_lua_service_function function, void *context) {
    struct ember_lua_control *control = control_of(L);
    control->service = function;
    control->service_context = context;
    control->service_checks = 0;
}

void ember_lua_set_yield_ticket(lua_State *L, intptr_t ticket) { control_of(L)->yield_ticket = ticket; }

void ember_lua_push_wait_sentinel(lua_State *L) { lua_pushlightuserdata(L, (void *)&wait_sentinel_key); }

/* MARK: the objects' __index */

/** What a field's getter returned is the lookup's result (after a wait too). */
static int field_index_continue(lua_State *L, int status, lua_KContext context) {
    (void)status;
    (void)context;
    return 1;
}

/** `__index(object, key)` over the methods (upvalue 1) and the fields' getters (upvalue 2). */
static int field_index(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (lua_gettable(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lua_pushvalue(L, 2);
    if (lua_gettable(L, lua_upvalueindex(2)) == LUA_TNIL) return 1;
    lua_pushvalue(L, 1);
    lua_callk(L, 1, 1, 0, field_index_continue);
    return 1;
}

int ember_lua_make_index(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_pushcclosure(L, field_index, 2);
    return 1;
}

int ember_lua_is_wait_sentinel(lua_State *L, int idx) {
    return lua_type(L, idx) == LUA_TLIGHTUSERDATA && lua_touserdata(L, idx) == (void *)&wait_sentinel_key;
}

static int make_thread(lua_State *L) {
    lua_State **out = lua_touserdata(L, 1);
    *out = lua_newthread(L);
    return 1;
}

int ember_lua_new_thread(lua_State *L, lua_State **thread) {
    *thread = NULL;
    lua_pushcfunction(L, make_thread);
    lua_pushlightuserdata(L, thread);
    return lua_pcall(L, 1, 1, 0);
}

static int thread_error(lua_State *L) {
    lua_State *thread = lua_touserdata(L, 2);
    luaL_traceback(L, thread, error_message(L), 0);
    return 1;
}

void ember_lua_thread_error(lua_State *L, lua_State *thread) {
    /* stack: ... | error */
    lua_pushcfunction(L, thread_error);
    lua_insert(L, -2);
    lua_pushlightuserdata(L, thread);
    int run = ember_lua_begin_run(L); /* a __tostring runs under the limits */
    int status = lua_pcall(L, 2, 1, 0);
    ember_lua_end_run(L, run);
    if (status != LUA_OK) {
        lua_pop(L, 1);
        lua_pushliteral(L, "(the error could not be described: out of memory)");
    }
}

int ember_lua_can_wait(lua_State *L) {
    struct ember_lua_control *control = control_of(L);
    return lua_isyieldable(L) && (control == NULL || control->finalizer_depth == 0);
}

int ember_lua_interrupt_pending(lua_State *L) { return interrupt_pending(control_of(L)); }

void ember_lua_clear_interrupt(lua_State *L) {
    atomic_store_explicit(&control_of(L)->interrupt_requested, 0, memory_order_relaxed);
}

/* MARK: objects */

void ember_lua_set_release_function(lua_State *L, ember_lua_release_function function) {
    control_of(L)->release = function;
}

static int object_gc(lua_State *L) {
    void **slot = lua_touserdata(L, 1);
    if (slot != NULL && *slot != NULL) {
        struct ember_lua_control *control = control_of(L);
        void *object = *slot;
        *slot = NULL;
        if (control->release != NULL) control->release(object);
    }
    return 0;
}

static int define_type(lua_State *L) {
    int type = (int)lua_tointeger(L, 1);
    /* stack: type | metatable */
    lua_pushcfunction(L, object_gc);
    lua_setfield(L, 2, "__gc");
    if (lua_getfield(L, 2, "__name") != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "ember object");
    }
    lua_setfield(L, 2, "__metatable");
    lua_pushvalue(L, 2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &object_type_keys[type]);
    return 0;
}

int ember_lua_define_type(lua_State *L, int type) {
    if (type < 0 || type >= EMBER_LUA_OBJECT_TYPES) {
        lua_pop(L, 1);
        lua_pushliteral(L, "ember: object type out of range");
        return LUA_ERRRUN;
    }
    lua_pushcfunction(L, define_type);
    lua_insert(L, -2);
    lua_pushinteger(L, type);
    lua_insert(L, -2);
    return lua_pcall(L, 2, 0, 0);
}

void ember_lua_push_object(lua_State *L, int type, void *object) {
    void **slot = lua_newuserdatauv(L, sizeof(void *), 0);
    *slot = object;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &object_type_keys[type]);
    lua_setmetatable(L, -2);
}

void *ember_lua_to_object(lua_State *L, int idx, int type) {
    if (type < 0 || type >= EMBER_LUA_OBJECT_TYPES || lua_type(L, idx) != LUA_TUSERDATA) return NULL;
    if (!lua_checkstack(L, 2)) return NULL;
    if (!lua_getmetatable(L, idx)) return NULL;
    lua_rawgetp(L, LUA_REGISTRYINDEX, &object_type_keys[type]);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (!same) return NULL;
    void **slot = lua_touserdata(L, idx);
    return slot != NULL ? *slot : NULL;
}

int ember_lua_push_type_metatable(lua_State *L, int type) {
    if (type < 0 || type >= EMBER_LUA_OBJECT_TYPES) {
        lua_pushnil(L);
        return LUA_TNIL;
    }
    return lua_rawgetp(L, LUA_REGISTRYINDEX, &object_type_keys[type]);
}


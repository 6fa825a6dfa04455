/// The stable, machine-readable codes of every error Ember reports: what ``DatabaseError/code``,
/// the shell's `--json` errors (`{"error": {"code": ...}}`) and Lua error objects (`err.code`)
/// carry. docs/ERRORS.md lists each with its meaning, where it comes from and Firebase's
/// equivalent; a test keeps that table and ``all`` in step.
///
/// Codes never change once published: messages may be reworded, codes may not. Where Firebase
/// has a wire code for the same thing, Ember uses it (`permission_denied`, `datastale`);
/// otherwise the code is Ember's own, lower snake case.
///
/// ```swift
/// if error.code == ErrorCode.overriddenBySet { retry() }
/// ```
public enum ErrorCode {
    // MARK: validation (thrown at once, before anything is sent)

    /// A key is empty, too long, or holds `.`, `#`, `$`, `[`, `]`, `/` or a control character.
    public static let invalidKey = "invalid_key"
    /// A path holds an invalid key, or names `.info`/`.priority` where they cannot be written.
    public static let invalidPath = "invalid_path"
    /// A path or value is nested deeper than ``Limits/maxDepth`` levels.
    public static let pathTooDeep = "path_too_deep"
    /// A value cannot be stored (not JSON, a bad server value, a wrong type for a command).
    public static let invalidValue = "invalid_value"
    /// A priority is not `null`, a finite number or a string.
    public static let invalidPriority = "invalid_priority"
    /// Query parameters do not fit together.
    public static let invalidQuery = "invalid_query"
    /// JSON text does not parse.
    public static let malformedJSON = "malformed_json"
    /// A client name is empty, too long, or not made of letters, digits, `-` and `_`.
    public static let invalidClientName = "invalid_client_name"
    /// A rules document does not compile: not JSON, an unknown key, an expression with a
    /// syntax or type error (the message names `line:column` and the rule's path).
    public static let invalidRules = "invalid_rules"

    // MARK: refusals and outcomes (from the server or the client's sync)

    /// The server's security rules refused the operation (Firebase `permission_denied`).
    public static let permissionDenied = "permission_denied"
    /// An auth token is malformed, or names no user (Firebase `invalid_token`).
    public static let invalidToken = "invalid_token"
    /// An auth token has expired: the client holds its writes until it is given a new one
    /// (Firebase `expired_token`).
    public static let expiredToken = "expired_token"
    /// A hash-guarded (transaction) write found the data changed (Firebase `datastale`).
    public static let dataStale = "datastale"
    /// The operation was cancelled because the connection went away (Firebase `disconnect`).
    public static let disconnected = "disconnected"
    /// The user cancelled the write (Firebase Android `WRITE_CANCELED`).
    public static let writeCanceled = "write_canceled"
    /// A transaction was retried too many times (Firebase `maxretry`, Android `MAX_RETRIES`).
    public static let maxRetries = "max_retries"
    /// A later `set` replaced a running transaction's location (Firebase `set`, Android
    /// `OVERRIDDEN_BY_SET`).
    public static let overriddenBySet = "overridden_by_set"
    /// A `get` found the client offline with nothing cached for the query.
    public static let offline = "offline"
    /// A wait can never end: nothing left to happen can satisfy it (e.g. offline).
    public static let wouldWaitForever = "would_wait_forever"
    /// Code running inside a listener or completion callback tried to wait for the database.
    public static let reentrantWait = "reentrant_wait"
    /// A Swift task waiting for the database was cancelled.
    public static let cancelled = "cancelled"

    // MARK: storage

    /// Saving or loading failed (disk full, I/O error): a write refused so is never applied.
    public static let storageError = "storage_error"
    /// The database directory cannot be written: writes are refused.
    public static let readOnly = "read_only"
    /// Another process holds the database directory.
    public static let databaseInUse = "database_in_use"
    /// A client's store is not a readable database; it was set aside.
    public static let storeUnreadable = "store_unreadable"
    /// The server's store is an empty file.
    public static let storeEmpty = "store_empty"
    /// Rows of the server's store could not be loaded and were left out.
    public static let badRows = "bad_rows"
    /// The shell asked to wait for a write that only lives in memory (a client without a store).
    public static let notStored = "not_stored"
    /// A script's write was not acknowledged within `--ack-timeout`; it stays queued.
    public static let notAcknowledged = "not_acknowledged"
    /// A command or function acts on the server itself (its rules, clock, latency, timeouts),
    /// which is in another process (`ember --connect`, a second terminal).
    public static let needsEmbeddedServer = "needs_embedded_server"

    // MARK: the shell

    /// The input does not parse.
    public static let syntaxError = "syntax_error"
    /// There is no command of that name.
    public static let unknownCommand = "unknown_command"
    /// There is no watch of that number.
    public static let unknownWatch = "unknown_watch"
    /// There is no client of that name (where a command does not create one).
    public static let unknownClient = "unknown_client"
    /// A file cannot be read or written.
    public static let ioError = "io_error"

    // MARK: Lua

    /// Lua code failed: a runtime error or a syntax error in Lua, or a transaction's update
    /// function that raised (Firebase Android `USER_CODE_EXCEPTION`).
    public static let luaError = "lua_error"
    /// Ctrl-C (or an interrupt request) stopped the command or script.
    public static let interrupted = "interrupted"
    /// A script ran more VM instructions than `--lua-instructions` allows.
    public static let instructionLimit = "instruction_limit"
    /// A script allocated more memory than `--lua-memory` allows.
    public static let memoryLimit = "memory_limit"
    /// A function of the Lua API got an argument of the wrong type or out of range.
    public static let invalidArgument = "invalid_argument"
    /// A Lua call that waits (`get`, `h:wait`, `ember.sleep`...) ran where nothing may wait.
    public static let cannotWait = "cannot_wait"
    /// `h:wait(timeout)` gave up before the server answered (the write stays queued).
    public static let timeout = "timeout"
    /// `ember.exec` or `ember.command` ran without a shell around the script.
    public static let noShell = "no_shell"
    /// `ember.command` was given the name of a built-in command.
    public static let reservedName = "reserved_name"
    /// `ember.exit(n)` ends the script (a `pcall` may catch it; the run still ends with `n`).
    public static let exit = "exit"
    /// A Lua object outlived its session or client (a binding called after the database closed).
    public static let sessionEnded = "session_ended"
    /// Ember failed in a way that is its own bug; the message says what.
    public static let internalError = "internal_error"

    /// Every code above, in the order docs/ERRORS.md lists them.
    public static let all: [String] = [
        invalidKey, invalidPath, pathTooDeep, invalidValue, invalidPriority, invalidQuery, malformedJSON,
        invalidClientName, invalidRules,
        permissionDenied, invalidToken, expiredToken, dataStale, disconnected, writeCanceled, maxRetries, overriddenBySet, offline,
        wouldWaitForever, reentrantWait, cancelled,
        storageError, readOnly, databaseInUse, storeUnreadable, storeEmpty, badRows, needsEmbeddedServer, notStored, notAcknowledged,
        syntaxError, unknownCommand, unknownWatch, unknownClient, ioError,
        luaError, interrupted, instructionLimit, memoryLimit, invalidArgument, cannotWait, timeout, noShell,
        reservedName, exit, sessionEnded, internalError,
    ]
}

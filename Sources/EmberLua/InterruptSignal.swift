import CLuaSupport

/// The process's Ctrl-C: a SIGINT handler that only sets a flag, shared by the shell's line
/// editor and every ``LuaState`` configured with `observesInterruptSignal`.
///
/// The flag lives in C (the one piece of process-wide mutable state) because a signal handler can
/// do nothing else safely. Running Lua code sees it in its count hook and stops with
/// "interrupted"; the shell sees it when a read returns early, and clears it.
///
/// The signal is delivered to a thread that does not block it. Dispatch and Swift concurrency
/// pool threads block signals, so the thread that waits for Ctrl-C (the shell's main thread)
/// must keep SIGINT unblocked.
public enum InterruptSignal {
    /// Installs the SIGINT handler (without `SA_RESTART`, so a blocking read returns early).
    /// - Throws: ``InterruptSignalError`` when `sigaction` fails.
    public static func install() throws(InterruptSignalError) {
        guard ember_lua_install_sigint_handler() == 0 else {
            throw InterruptSignalError()
        }
    }

    /// Whether SIGINT arrived since the last ``clear()``.
    public static var isPending: Bool { ember_lua_sigint_pending() != 0 }

    /// Forgets a received SIGINT.
    public static func clear() {
        ember_lua_clear_sigint()
    }
}

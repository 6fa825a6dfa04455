import CInterrupt

/// The process's Ctrl-C: a SIGINT handler that only sets a flag.
///
/// The flag lives in C (the one piece of process-wide mutable state) because a signal handler can
/// do nothing else safely. An ``Engine`` that observes it stops its waits with `.interrupted`;
/// Lua states configured to observe it stop running code with "interrupted"; the line editor
/// sees it when a read returns early.
///
/// The signal is delivered to a thread that does not block it. Dispatch and Swift concurrency
/// pool threads block signals, so the thread that waits for Ctrl-C (the shell's main thread)
/// must keep SIGINT unblocked.
public enum InterruptSignal {
    /// Installs the SIGINT handler (without `SA_RESTART`, so a blocking read returns early).
    /// - Throws: ``InterruptSignalError`` when `sigaction` fails.
    public static func install() throws(InterruptSignalError) {
        guard ember_sigint_install() == 0 else { throw InterruptSignalError() }
    }

    /// Whether SIGINT arrived since the last ``clear()``.
    public static var isPending: Bool { ember_sigint_pending() != 0 }

    /// Forgets a received SIGINT.
    public static func clear() { ember_sigint_clear() }

    /// Sets the flag as a SIGINT would (tests drive Ctrl-C with it).
    public static func raise() { ember_sigint_raise_flag() }
}

/// How a `LuaState` is set up: which libraries scripts get and the limits that stop runaway code.
public struct LuaConfiguration: Sendable, Hashable {
    /// The standard libraries opened in the state.
    public enum Libraries: Sendable, Hashable {
        /// base (without `dofile`/`loadfile`, with a `load` that refuses binary chunks),
        /// coroutine, table, string, math, utf8, and `os.time`/`os.clock`/`os.date` only.
        case safe
        /// Every standard library, including `io`, `os`, `package`/`require` and `debug`
        /// (`ember --unsafe-lua`).
        case all
    }

    /// The standard libraries opened in the state.
    public var libraries: Libraries

    /// How many VM instructions one run may execute before it stops with
    /// ``LuaError/Kind/instructionLimit``; `nil` for no limit. Checked every 1000 instructions.
    public var instructionLimit: Int?

    /// How many bytes the state may allocate; `nil` for no limit. An allocation past it fails
    /// with ``LuaError/Kind/memory``.
    public var memoryLimit: Int?

    /// Whether a SIGINT (see ``InterruptSignal``) interrupts running code, as Ctrl-C in the shell.
    public var observesInterruptSignal: Bool

    /// Creates a configuration; by default safe libraries, no limits, SIGINT not observed.
    public init(
        libraries: Libraries = .safe,
        instructionLimit: Int? = nil,
        memoryLimit: Int? = nil,
        observesInterruptSignal: Bool = false
    ) {
        self.libraries = libraries
        self.instructionLimit = instructionLimit
        self.memoryLimit = memoryLimit
        self.observesInterruptSignal = observesInterruptSignal
    }
}

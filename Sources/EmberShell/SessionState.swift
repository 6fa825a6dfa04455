import DequeModule
import EmberClient
import EmberCore
import EmberQL
import EmberServer

/// Where a shell session is and how it shows things: the client commands run as and the
/// location paths start from, the output settings, the watches and the events they hold, what
/// is traced, the tour, and whether the session is ending. A value the ``Shell`` owns
/// (``Shell/state``); the shell's services (the instance, the Lua runtime, the local socket,
/// the viewer) are not part of it.
public struct SessionState {
    /// The client commands run as (`client NAME` switches).
    public internal(set) var currentClient: ClientName = .main
    /// The location relative paths start from (`cd`).
    public internal(set) var location: Path = .root
    /// How results print.
    public var outputMode: OutputMode
    /// Whether each command's duration is printed.
    public var timing = false
    /// Whether the duration waits in ``heldTiming`` for the REPL to print it after the result
    /// (issue 37: `timing on` printed the time before a result held for the pager).
    public var holdsTiming = false
    /// The duration line of the last command, while ``holdsTiming``.
    public var heldTiming: String?
    /// Whether long results go through the pager at a terminal (`pager on|off`).
    public var pagerEnabled = true
    /// How long a write waits for its acknowledgement: ``ShellSession`` sets it for scripts
    /// (`--ack-timeout`) and for the prompt; until the answer otherwise.
    public var acknowledgementWait = AcknowledgementWait.unbounded
    /// Whether `exit` was run.
    public internal(set) var exitRequested = false
    /// The status the run ends with once ``exitRequested``: 0 for `exit`, `n` for `ember.exit(n)`.
    public internal(set) var exitStatus: Int32 = 0
    /// Whether stderr is a terminal (progress bars are drawn only then).
    public var showsProgress = false
    /// The session's watches, by number.
    var watches: [Int: Watch] = [:]
    /// The number the next watch gets.
    var nextWatchID = 1
    /// Whether the shell is inside a command that was started as another client (`as`).
    var clientOverride: ClientName?
    /// Whose protocol messages `trace` prints (`nil`: nobody's).
    var tracedClients: TracedClients?
    /// The guided tour, while it runs.
    var tour: Tour?
    /// Whether `rules trace` prints every rules check.
    var tracesRules = false
    /// The rules checks the viewer lists (the last 200, kept while it runs).
    var ruleLog: Deque<(ClientName, RuleCheck)> = []
    /// The protocol messages the viewer shows as a timeline (the last ``ViewerService/kept``).
    var protocolLog = ProtocolLog()
    /// Whether `lua` alone asked for Lua mode (the REPL switches its prompt to `lua>`).
    public var luaModeRequested = false
    /// How many of the instance's notices have been printed.
    var reportedNotices = 0
    /// Whether a command runs for `ember.exec`: its result goes to the script, and notes for
    /// people (progress, waiting, a client created) are not printed.
    var runningForScript = false
    /// Events of watches started by the running command, held until the command's result (the
    /// watch's own line) has printed.
    var heldEvents: [String] = []
    /// The watches whose events are held.
    var holdingWatches: Set<Int> = []

    init(outputMode: OutputMode) {
        self.outputMode = outputMode
    }
}

import Foundation
import Glibc

/// `ember` running at a pseudo-terminal, driven like a user at a keyboard: it is its own
/// session with the terminal as its controlling terminal, so Ctrl-C typed at the keyboard sends
/// it SIGINT as a real terminal would.
final class TerminalSession {
    /// The terminal pair.
    let terminal: PseudoTerminal
    /// The child's process id.
    let pid: pid_t
    /// Everything the program drew so far.
    private(set) var screen = ""
    /// Whether the child was reaped.
    private var exited = false

    /// `posix_spawn`'s flag that makes the child a session leader (glibc's value).
    private static let setSessionFlag: Int16 = 0x80

    /// Starts `executable` with `arguments` at a new terminal, with `environment`.
    init(executable: String, arguments: [String], environment: [String: String], columns: UInt16 = 100) throws {
        guard let terminal = PseudoTerminal(columns: columns) else { throw TranscriptError("no pseudo-terminal available") }
        self.terminal = terminal
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // opened after setsid: the terminal becomes the child's controlling terminal
        posix_spawn_file_actions_addopen(&actions, 0, terminal.name, O_RDWR, 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // a session of its own, no blocked signals and default handlers (the test runner's
        // threads block some), as a program started from a shell would have
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &interrupt)
        posix_spawnattr_setflags(&attributes, Self.setSessionFlag | Int16(POSIX_SPAWN_SETSIGMASK) | Int16(POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw TranscriptError("cannot start \(executable): \(String(cString: strerror(status)))") }
        self.pid = pid
    }

    deinit {
        guard !exited else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Types `keys`.
    func type(_ keys: String) {
        _ = terminal.type(keys)
    }

    /// Reads what the program draws until `text` appears after `start` (an offset into
    /// ``screen``), or `timeout` seconds pass.
    /// - Returns: whether it appeared.
    @discardableResult
    func waitFor(_ text: String, after start: String.Index? = nil, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if screen[(start ?? screen.startIndex)...].contains(text) { return true }
            if Date() > deadline { return false }
            var request = pollfd(fd: terminal.master, events: Int16(POLLIN), revents: 0)
            if poll(&request, 1, 50) > 0 { screen += terminal.screen() }
        }
    }

    /// Reads what the program draws until `condition` holds for the whole screen, or `timeout`
    /// seconds pass.
    func waitUntil(timeout: Double = 10, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            screen += terminal.screen()
            if condition(screen) { return true }
            if Date() > deadline { return false }
            var request = pollfd(fd: terminal.master, events: Int16(POLLIN), revents: 0)
            _ = poll(&request, 1, 50)
        }
    }

    /// The end of what was drawn so far: wait for text drawn after this point.
    var mark: String.Index { screen += terminal.screen(); return screen.endIndex }

    /// Waits for the program to exit; returns its status, or `nil` after `timeout` seconds.
    func waitForExit(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            screen += terminal.screen()
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exited = true
                return (status >> 8) & 0xFF
            }
            usleep(20_000)
        }
        return nil
    }
}

import Glibc

/// A running pager (`$PAGER`, `less -FRX` by default, as psql does): a `/bin/sh -c` child whose
/// standard input is a pipe the shell writes results into, and whose output is the terminal.
final class Pager {
    private let process: pid_t
    private var input: Int32
    /// Whether the pager stopped reading (the user quit it): further writes are dropped.
    private(set) var isClosed = false

    /// Starts `command` with `/bin/sh -c`.
    /// - Returns: `nil` when it cannot be started (the caller prints directly).
    init?(command: String) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], STDIN_FILENO)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        var child: pid_t = 0
        let arguments = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&child, "/bin/sh", &actions, nil, &argv, environ)
        close(pipeEnds[0])
        guard spawned == 0 else {
            close(pipeEnds[1])
            return nil
        }
        process = child
        input = pipeEnds[1]
    }

    /// Writes `text` to the pager; stops (and remembers it) when the pager quits or Ctrl-C
    /// arrives.
    func write(_ text: String) {
        guard !isClosed else { return }
        if !StandardOutput.write(text, to: input, stoppingOnCtrlC: true) { isClosed = true }
    }

    /// Ends the input and waits for the pager to exit (the user reads to the end, or quits).
    func finish() {
        if input >= 0 {
            close(input)
            input = -1
        }
        var status: Int32 = 0
        while waitpid(process, &status, 0) < 0 && errno == EINTR {}
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a peer's command-line program to completion, its standard output and error captured in
/// files (no pipes to drain, so no deadlock however much it prints).
struct PeerProcess {
    /// Why a program gave no usable result.
    enum Failure: Error, CustomStringConvertible {
        /// `posix_spawnp` failed (usually: not installed).
        case cannotStart(program: String, reason: String)
        /// The program ran longer than allowed and was killed.
        case timedOut(program: String, seconds: Double)
        /// No temporary directory for the captured output.
        case noDirectory(String)

        var description: String {
            switch self {
            case .cannotStart(let program, let reason): "cannot run \(program): \(reason)"
            case .timedOut(let program, let seconds): "\(program) ran more than \(Int(seconds)) s and was killed"
            case .noDirectory(let reason): "no temporary directory: \(reason)"
            }
        }
    }

    /// How a run ended and what it printed.
    struct Output {
        /// The exit status, or 128 + the signal number when a signal ended it.
        let status: Int32
        let standardOutput: String
        let standardError: String

        /// The last `count` non-empty lines of standard error, joined with ` | `.
        func errorTail(_ count: Int = 5) -> String {
            PeerProcess.tail(standardError, lines: count)
        }
    }

    /// Runs `arguments` (the first is looked up in `PATH`), killing it after `timeout` seconds.
    static func run(_ arguments: [String], timeout: Double = 900) throws(Failure) -> Output {
        let directory: PeerDirectory
        do { directory = try PeerDirectory(prefix: "process") } catch { throw .noDirectory(error.description) }
        defer { directory.remove() }
        let outPath = directory.file("stdout")
        let errPath = directory.file("stderr")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw .cannotStart(program: arguments[0], reason: String(cString: strerror(spawned)))
        }
        let deadline = ContinuousClock.now + .seconds(timeout)
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { break }
            if result < 0 && errno != EINTR { break }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                throw .timedOut(program: arguments[0], seconds: timeout)
            }
            usleep(2_000)
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let signal = status & 0x7f
        let exitStatus = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return Output(
            status: exitStatus,
            standardOutput: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
    }

    /// The last `lines` non-empty lines of `text`, joined with ` | `.
    static func tail(_ text: String, lines: Int) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: true).suffix(lines).joined(separator: " | ")
    }
}

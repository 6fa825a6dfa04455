import EmberEngine
import EmberInstance
import EmberLua
import EmberQL
import Foundation
import Glibc

/// A whole `ember` run: opens the session, runs `-c`/`-e`/`-f`/SCRIPT, then the REPL or the
/// commands on standard input, and returns the exit status.
public enum ShellSession {
    /// `ember help [TOPIC]`: prints the shell's help as `help` prints it at the prompt (the
    /// built-in commands: no plugin is loaded), without opening a database.
    /// - Returns: 0, or 1 (the error on stderr) when `topic` names no command or topic.
    public static func printHelp(topic: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        let style = TextStyle(colored: (environment["NO_COLOR"] ?? "").isEmpty && isatty(STDOUT_FILENO) == 1)
        do {
            let result = try Shell.help(
                topic.map { Word($0, at: .start) }, registry: CommandDescription.builtins, style: style)
            if case .report(let text?, _) = result { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
            return 0
        } catch {
            let message = error.rendered(source: nil, json: false, style: TextStyle(colored: false))
            FileHandle.standardError.write(Data((message + "\n").utf8))
            return 1
        }
    }

    /// Runs `ember` with `options`.
    /// - Returns: 0 on success; 1 when a command or script failed (scripts stop at the first
    ///   error) or the database cannot be opened.
    public static func run(options: ShellOptions, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32 {
        let inputIsTerminal = isatty(STDIN_FILENO) == 1
        let outputIsTerminal = isatty(STDOUT_FILENO) == 1
        let output = TerminalOutput()
        try? InterruptSignal.install()
        // Ctrl-C must reach this thread even if whoever started us blocked SIGINT
        var interrupt = sigset_t()
        sigemptyset(&interrupt)
        sigaddset(&interrupt, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
        let shell: Shell
        do {
            shell = try Shell(
                options: options, output: output, colored: options.usesColor(environment: environment, outputIsTerminal: outputIsTerminal))
        } catch {
            output.writeError(error.rendered(source: nil, json: options.jsonOutput, style: TextStyle(colored: false)) + "\n")
            return 1
        }
        shell.state.showsProgress = isatty(STDERR_FILENO) == 1
        let status = run(shell, options: options, output: output, environment: environment, inputIsTerminal: inputIsTerminal)
        // Writes a script left unacknowledged, or lost with a queue in memory, fail it.
        let writesKept = shell.finishWrites(waiting: status == 0)
        // What could not be committed at the end is an error too.
        return shell.close() && writesKept ? status : 1
    }

    /// Everything after opening: the notices, the start-up scripts, the commands, the REPL.
    private static func run(
        _ shell: Shell, options: ShellOptions, output: TerminalOutput, environment: [String: String], inputIsTerminal: Bool
    ) -> Int32 {
        // A store that cannot be read stops a command-line run before it starts: what it held
        // (queued writes) is not there, and a script must not go on as if it were.
        if !shell.reportNotices() && options.runsBatchOnly { return 1 }
        shell.loadStartupScripts(configurationDirectory: Shell.configurationDirectory(environment: environment))

        // -c and -e in the order given, then -f, then SCRIPT; the first failure stops the run.
        // A script's write waits for its acknowledgement at most --ack-timeout.
        shell.state.acknowledgementWait = options.acknowledgementTimeout.map { .bounded(milliseconds: $0) } ?? .unbounded
        // Other processes on the directory are let in while this run goes on.
        if options.runsBatchOnly || !inputIsTerminal { shell.serveLocalSocketWhenLong() }
        for input in options.inputs {
            let succeeded = switch input {
            case .command(let command): shell.execute(command)
            case .lua(let chunk): shell.executeLua(chunk, asStatement: true)
            }
            // `exit` (`quit`, `\\q`) and `ember.exit(n)` end the run: nothing after them runs.
            if shell.state.exitRequested { return shell.state.exitStatus }
            if !succeeded { return 1 }
        }
        if let file = options.file {
            let succeeded = shell.runFile(file)
            if shell.state.exitRequested { return shell.state.exitStatus }
            if !succeeded { return 1 }
        }
        if let script = options.script {
            let succeeded = shell.runFile(script, arguments: options.scriptArguments)
            if shell.state.exitRequested { return shell.state.exitStatus }
            if !succeeded { return 1 }
        }
        if shell.state.exitRequested || options.runsBatchOnly { return shell.state.exitStatus }

        guard inputIsTerminal else {
            let lines = AnySequence { AnyIterator { Swift.readLine(strippingNewline: true) } }
            let succeeded = shell.runLines(lines)
            if shell.state.exitRequested { return shell.state.exitStatus }
            return succeeded ? 0 : 1
        }
        setlocale(LC_CTYPE, "")
        shell.state.acknowledgementWait = .interactive
        let editor: LineEditor
        do {
            editor = try LineEditor()
        } catch {
            output.writeError("error: \(error.message)\n")
            return 1
        }
        output.editor = editor
        if isatty(STDOUT_FILENO) == 1 {
            // long results go through the pager, as psql does; an empty $PAGER turns it off.
            // Writing to a pager the user quit must not kill the shell.
            let pager = environment["PAGER"] ?? "less -FRX"
            output.pagerCommand = pager.trimmingCharacters(in: .whitespaces).isEmpty ? nil : pager
            signal(SIGPIPE, SIG_IGN)
        }
        if !options.quiet {
            let database = shell.ember.remoteServer.map { "connected to \($0.url)" } ?? options.databaseDirectory ?? "in memory"
            output.write("ember \(Shell.version) · \(database) · type help, Tab completes, Ctrl-D exits\n")
        }
        // Another terminal on the same directory connects here rather than being refused.
        shell.serveLocalSocket()
        let repl = Repl(shell: shell, editor: editor, historyFile: Repl.defaultHistoryFile(environment: environment))
        return repl.run()
    }
}

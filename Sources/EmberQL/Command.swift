import EmberCore

/// One command of the shell's query language, as the parser compiles a line (see SHELL.md).
///
/// A command is data: it names what to do and carries its arguments with the positions they
/// were written at, so the shell can point at the word that fails when it runs. Paths stay as
/// written (relative paths are resolved against the shell's location when the command runs).
public indirect enum Command: Sendable, Equatable {
    // MARK: data
    /// `get [PATH] [QUERY]`: read once.
    case get(PathExpression, QueryExpression)
    /// `ls [PATH] [QUERY]`: the children, in query order.
    case ls(PathExpression, QueryExpression)
    /// `tree [PATH] [depth N]`: an indented tree view, `depth` levels deep (all when `nil`).
    case tree(PathExpression, depth: Int?)
    /// `set PATH VALUE [priority P]`.
    case set(PathExpression, ValueExpression, priority: ValueExpression?)
    /// `update PATH OBJECT`: atomic multi-location update; keys may be deep paths.
    case update(PathExpression, ValueExpression)
    /// `push PATH [VALUE]`: a new child at a push id (an empty object's push when no value).
    case push(PathExpression, ValueExpression?)
    /// `remove [-y] PATH` (alias `rm`); `confirmed` when `-y` was given (before the path).
    case remove(PathExpression, confirmed: Bool)
    /// `increment PATH [N]`: N defaults to 1 (an `.int(1)` value).
    case increment(PathExpression, by: ValueExpression)
    /// `transaction PATH LUA-FUNCTION`: the function's source, as written to the end of the input.
    case transaction(PathExpression, function: Word)
    /// `priority PATH P`.
    case priority(PathExpression, ValueExpression)
    /// `export [PATH] [FILE]`: stdout when no file.
    case export(PathExpression, file: Word?)
    /// `import PATH FILE`.
    case `import`(PathExpression, file: Word)

    // MARK: live
    /// `watch [PATH] [QUERY] [EVENT...]`: no events means every child event. Events (in any case)
    /// and modifiers may come in any order; a repeated event is kept once, where first written.
    case watch(PathExpression, QueryExpression, events: [EventType])
    /// `unwatch ID | all`.
    case unwatch(UnwatchTarget)
    /// `watches`.
    case watches
    /// `keepsynced PATH on|off` (`true` and `false` are accepted too).
    case keepSynced(PathExpression, Bool)

    // MARK: connection and presence
    /// `offline`.
    case offline
    /// `online`.
    case online
    /// `drop`.
    case drop
    /// `status`.
    case status
    /// `ondisconnect PATH set VALUE [priority P] | update OBJECT | remove | cancel`.
    case onDisconnect(PathExpression, OnDisconnectAction)

    // MARK: location
    /// `cd [PATH]`: to the root when no path.
    case cd(PathExpression)
    /// `pwd`.
    case pwd

    // MARK: clients and the server
    /// `client NAME [auth {CLAIMS} [expires MS] | auth none]`.
    case client(Word, auth: AuthAction? = nil)
    /// `clients`.
    case clients
    /// `as NAME COMMAND`.
    case `as`(Word, Command)
    /// `server clock skew MS` (may be negative).
    case serverClockSkew(Int64)
    /// `server latency MS` (not negative).
    case serverLatency(Int64)
    /// `server timeout MS` (positive): how long the server takes to notice a silent drop
    /// (`drop`), for connections opened from now on.
    case serverTimeout(Int64)

    // MARK: security
    /// `auth` alone (`nil`): who the current client is; `auth {CLAIMS} [expires MS]`; `auth none`.
    case auth(AuthAction?)
    /// `rules [show] | load FILE | open | trace on|off | coverage`.
    case rules(RulesAction)
    /// `explain`: how the rules decided the current client's last operation.
    case explain

    // MARK: scripting and the rest
    /// `lua CODE`, or `lua` alone (`nil`) to enter Lua mode. The code is the rest of the input as
    /// written (`#` is Lua's length operator, not a comment), without surrounding white space.
    case lua(Word?)
    /// `run FILE [ARGS...]`.
    case run(Word, arguments: [Word])
    /// `plugins`.
    case plugins
    /// `help [COMMAND]`.
    case help(Word?)
    /// `timing on|off`, or `timing` alone (`nil`) to show the setting.
    case timing(Bool?)
    /// `tour [N|next|stop]`: the guided tour, in lessons.
    case tour(TourAction)
    /// `view`: the data viewer in a browser (a URL on 127.0.0.1).
    case view
    /// `inspect [CLIENT]`: what a client holds (its cache, queue, listens, transactions,
    /// onDisconnect operations) beside what the server holds for it.
    case inspect(Word?)
    /// `trace on [CLIENT|all]`, `trace off`, or `trace` alone: the realtime protocol's messages
    /// as they cross.
    case trace(TraceAction)
    /// `pager on|off`, or `pager` alone (`nil`) to show the setting.
    case pager(Bool?)
    /// `output pretty|json|table`, or `output` alone (`nil`) to show the setting.
    case output(OutputMode?)
    /// `sleep MS`: lets MS milliseconds pass while events print (for command files and demos).
    case sleep(Int64)
    /// `history`.
    case history
    /// `clear`.
    case clear
    /// `exit` or `quit`.
    case exit
    /// A word that is no built-in command: a plugin's command, with the rest of the input as
    /// written, its `#` comments removed and its surrounding white space trimmed (`nil` when
    /// nothing is left). The shell reports an unknown command if no plugin has this name.
    case plugin(Word, arguments: Word?)
}

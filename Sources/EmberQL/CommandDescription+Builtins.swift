/// The built-in commands, as SHELL.md describes them.
extension CommandDescription {
    /// Every built-in command, in the order `help` lists them, grouped as SHELL.md groups them:
    /// "Data", "Live", "Connection and presence", "Location", "Clients and the server",
    /// "Security", "Scripting and the rest". Every example parses to the command it describes.
    public static let builtins: [CommandDescription] = data + live + connection + location + clients + security + scripting

    /// Reads and writes.
    private static let data: [CommandDescription] = [
        .init(
            name: "get", syntax: "[PATH] [QUERY] [timeout MS]",
            summary: "Reads a location once: from the server when connected, from the cache when offline; with nothing cached it waits for the connection up to 3 s, or MS milliseconds (at most 86400000, 1 day), then fails with offline (Ctrl-C stops the wait).",
            example: "get /users orderBy child age limitToFirst 3", group: "Data"),
        .init(
            name: "ls", syntax: "[PATH] [QUERY] [timeout MS]",
            summary: "Lists the children, each key with a short summary, in query order; read as get reads (timeout MS likewise).",
            example: "ls /scores orderBy value limitToLast 5", group: "Data"),
        .init(
            name: "tree", syntax: "[PATH] [depth N]",
            summary: "Shows an indented tree view, N levels deep (every level when no depth is given).",
            example: "tree /users depth 2", group: "Data"),
        .init(
            name: "set", syntax: "PATH VALUE [priority P]",
            summary: "Writes a value at a location, replacing what was there, optionally with a priority.",
            example: "set /users/alice {name: 'Alice', age: 31, joined: now}", group: "Data"),
        .init(
            name: "update", syntax: "PATH {k: v, \"a/b\": w}",
            summary: "Writes several locations under PATH in one atomic update; keys may be deep paths.",
            example: "update /users/alice {age: 32, \"address/city\": 'Paris'}", group: "Data"),
        .init(
            name: "push", syntax: "PATH [VALUE]",
            summary: "Adds a child at a new push id and prints the new key.",
            example: "push /messages {text: 'hello', at: now}", group: "Data"),
        .init(
            name: "remove", aliases: ["rm"], syntax: "[-y] PATH",
            summary: "Deletes a location; at a terminal it asks first when the location has children (-y does not ask).",
            example: "remove -y /sessions/old", group: "Data"),
        .init(
            name: "increment", syntax: "PATH [N]",
            summary: "Adds N (1 when not given) to the number at a location, on the server.",
            example: "increment /stats/visits 5", group: "Data"),
        .init(
            name: "transaction", syntax: "PATH LUA-FUNCTION",
            summary: "Runs a Lua function on the value until the write commits; shows each attempt, then committed or aborted and the value.",
            example: "transaction /counter function(v) return (v or 0) + 1 end", group: "Data"),
        .init(
            name: "priority", syntax: "PATH P",
            summary: "Sets the priority of a location: a number, a string or null.",
            example: "priority /users/alice 10", group: "Data"),
        .init(
            name: "export", syntax: "[PATH] [FILE]",
            summary: "Writes a location in Firebase export format (\".value\"/\".priority\") to FILE, or to the screen when no file is given.",
            example: "export /users users.json", group: "Data"),
        .init(
            name: "import", syntax: "PATH FILE",
            summary: "Writes the JSON of FILE at PATH: all of it lands, or none (on a database directory, streamed into the store with a progress bar).",
            example: "import /users users.json", group: "Data"),
    ]

    /// Listeners.
    private static let live: [CommandDescription] = [
        .init(
            name: "watch", syntax: "[PATH] [QUERY] [EVENT...]",
            summary: "Listens at a location and prints each event as it happens; events are value, child_added, child_changed, child_removed and child_moved (every child event when none is given).",
            example: "watch /scores orderBy value limitToLast 3 child_added child_removed", group: "Live"),
        .init(
            name: "unwatch", syntax: "ID | all",
            summary: "Stops a listener, by the number watch printed, or all of them.",
            example: "unwatch 2", group: "Live"),
        .init(
            name: "watches", syntax: "",
            summary: "Lists the active listeners.",
            example: "watches", group: "Live"),
        .init(
            name: "trace", syntax: "[on [CLIENT|all] | off]",
            summary: "Prints every realtime protocol message between a client (the current one, one named, or all) and the server as it crosses, above the prompt and in order with the events it causes: → to the server, ← from it, with the request number, the action, the path and a shortened body (--json: each message whole). Alone, shows what is traced.",
            example: "trace on all", group: "Live"),
        .init(
            name: "inspect", syntax: "[CLIENT]",
            summary: "Shows what a client holds: each view of its cache (its query, complete or not, its data, and whether the server's data differs), its pending writes in order with their state (queued, sent), its listens on the server, its transactions in flight with their attempts, its onDisconnect operations; and what the server holds for its connection.",
            example: "inspect bob", group: "Live"),
        .init(
            name: "tour", syntax: "[N|next|stop]",
            summary: "A guided tour in eight lessons (paths, events, queries, optimistic writes, offline, transactions, presence, rules): each explains, asks you to type something, and goes on when what happened shows it done; tour N starts at lesson N.",
            example: "tour", group: "Live"),
        .init(
            name: "view", syntax: "",
            summary: "Serves the data viewer on 127.0.0.1 and prints its address: the server's data live, editable, with a query box and import and export, beside each client's cache, pending writes and listens, and the protocol's messages as a timeline.",
            example: "view", group: "Live"),
        .init(
            name: "keepsynced", syntax: "PATH on|off",
            summary: "Keeps a location synchronised in the cache, even when nothing listens to it.",
            example: "keepsynced /config on", group: "Live"),
    ]

    /// The connection of the current client.
    private static let connection: [CommandDescription] = [
        .init(
            name: "offline", syntax: "",
            summary: "Disconnects the current client (goOffline); writes queue until it is back online.",
            example: "offline", group: "Connection and presence"),
        .init(
            name: "online", syntax: "",
            summary: "Reconnects the current client (goOnline).",
            example: "online", group: "Connection and presence"),
        .init(
            name: "drop", syntax: "",
            summary: "Kills the connection silently; the server notices after its timeout.",
            example: "drop", group: "Connection and presence"),
        .init(
            name: "status", syntax: "",
            summary: "Shows whether the client is connected, the server time offset, pending writes, listeners and the cache size.",
            example: "status", group: "Connection and presence"),
        .init(
            name: "ondisconnect", syntax: "PATH set VALUE [priority P] | update OBJECT | remove | cancel",
            summary: "Registers a write the server makes when this client disconnects, or cancels those registered at PATH.",
            example: "ondisconnect /presence/alice set false", group: "Connection and presence"),
    ]

    /// The shell's current location.
    private static let location: [CommandDescription] = [
        .init(
            name: "cd", syntax: "[PATH]",
            summary: "Changes the current location (to the root when no path is given); relative paths start from it.",
            example: "cd /users", group: "Location"),
        .init(
            name: "sleep", syntax: "MS",
            summary: "Lets MS milliseconds pass while events print (in command files: wait for a timeout, a reconnection); MS is at most 86400000 (1 day).",
            example: "sleep 1500", group: "Connection and presence"),
        .init(
            name: "pwd", syntax: "",
            summary: "Prints the current location.",
            example: "pwd", group: "Location"),
    ]

    /// Clients and the simulated server.
    private static let clients: [CommandDescription] = [
        .init(
            name: "client", syntax: "NAME [auth {CLAIMS} [expires MS]]",
            summary: "Switches to client NAME, creating it with its own cache, write queue and listeners; with auth, signs it in as auth does.",
            example: "client alice auth {uid: 'alice', email: 'a@x'}", group: "Clients and the server"),
        .init(
            name: "clients", syntax: "",
            summary: "Lists the clients with their state.",
            example: "clients", group: "Clients and the server"),
        .init(
            name: "as", syntax: "NAME COMMAND",
            summary: "Runs one command as client NAME.",
            example: "as bob set /presence/bob true", group: "Clients and the server"),
        .init(
            name: "server", syntax: "clock skew MS | latency MS | timeout MS",
            summary: "Runs the server's clock MS milliseconds ahead (shown as .info/serverTimeOffset; within 10 years either way), delays every message by MS milliseconds (up to 1 hour), or sets how long the server takes to notice a dropped connection (1 ms to 1 day).",
            example: "server latency 200", group: "Clients and the server"),
    ]

    /// Security rules and auth.
    private static let security: [CommandDescription] = [
        .init(
            name: "auth", syntax: "[{CLAIMS} [expires MS] | none]",
            summary: "Signs the current client in as the user CLAIMS describe (uid, and any claims such as email or admin), with a token that holds MS milliseconds (1 hour when not given; kept across restarts with a database directory); none signs out; alone, shows who the client is. When the token has expired, the client holds its writes until it is given a new one.",
            example: "auth {uid: 'alice', email: 'alice@example.com'}", group: "Security"),
        .init(
            name: "rules", syntax: "[show] | load FILE | open | trace on|off | coverage",
            summary: "Shows the security rules in force, loads a rules file (JSON with comments; kept with a database directory; an error names line:column and leaves the rules as they were), goes back to the open rules, prints how the rules decide every operation (trace), or counts each rule's evaluations and outcomes (coverage).",
            example: "rules load rules.json", group: "Security"),
        .init(
            name: "explain", syntax: "",
            summary: "Explains how the rules decided the current client's last operation: each rule evaluated, where, its sub-expressions' values and the verdict.",
            example: "explain", group: "Security"),
    ]

    /// Lua and the shell itself.
    private static let scripting: [CommandDescription] = [
        .init(
            name: "lua", syntax: "[CODE]",
            summary: "Runs one Lua chunk; alone, enters Lua mode (prompt lua>; .q or Ctrl-D returns to commands, exit leaves).",
            example: "lua for i = 1, 3 do print(i) end", group: "Scripting and the rest"),
        .init(
            name: "run", syntax: "FILE [ARGS...]",
            summary: "Runs a Lua script with arguments.",
            example: "run seed.lua 100", group: "Scripting and the rest"),
        .init(
            name: "plugins", syntax: "",
            summary: "Lists the loaded plugins and the commands they add.",
            example: "plugins", group: "Scripting and the rest"),
        .init(
            name: "help", syntax: "[COMMAND]",
            summary: "Lists the commands, or shows one command's syntax, description and example.",
            example: "help set", group: "Scripting and the rest"),
        .init(
            name: "timing", syntax: "[on|off]",
            summary: "Prints how long each command took, or (alone) shows the setting.",
            example: "timing on", group: "Scripting and the rest"),
        .init(
            name: "pager", syntax: "[on|off]",
            summary: "At a terminal, results longer than the screen go through $PAGER (less -FRX when unset; Ctrl-C stops printing either way); alone, shows the setting.",
            example: "pager off", group: "Scripting and the rest"),
        .init(
            name: "output", syntax: "[pretty|json|table]",
            summary: "Chooses how results print: pretty (coloured, indented JSON), json (compact) or table (children as rows); alone, shows the setting.",
            example: "output table", group: "Scripting and the rest"),
        .init(
            name: "history", syntax: "",
            summary: "Shows the commands entered before.",
            example: "history", group: "Scripting and the rest"),
        .init(
            name: "clear", syntax: "",
            summary: "Clears the screen.",
            example: "clear", group: "Scripting and the rest"),
        .init(
            name: "exit", aliases: ["quit", "\\q"], syntax: "",
            summary: "Leaves the shell (also Ctrl-D at an empty prompt; \\q as in psql).",
            example: "exit", group: "Scripting and the rest"),
    ]
}

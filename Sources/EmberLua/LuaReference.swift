/// The Lua API's reference: every binding scripts can use, with its arguments, what it returns,
/// its errors and an example. The one source of `docs/LUA.md` (written from it) and of
/// `help lua` (a summary of it), so that the two cannot drift; the tests run every example and
/// check that every binding the runtime installs is here and every entry is installed.
public enum LuaReference {
    /// One binding.
    public struct Entry: Sendable {
        /// The object it belongs to, as scripts name it: `db`, `ember`, `ref`, `query`, `snap`,
        /// `handle`, `listener`, `onDisconnect`, `ember.ServerValue`, `ember.json`.
        public let object: String
        /// Its name as installed (`ref`, `key`, `orderByChild`).
        public let name: String
        /// How it is reached.
        public let kind: Kind
        /// How it is called and what it gives: `ref:set(value [, priority] [, onComplete]) -> handle`.
        public let signature: String
        /// What it does.
        public let summary: String
        /// The errors it raises (codes and when), or "" for none beyond wrong arguments.
        public let errors: String
        /// A script that shows it (run by the tests in a fresh in-memory session)...
        public let example: String
        /// ...and exactly what it prints.
        public let output: String

        /// The first sentence of what it does (what `help lua` shows beside the signature).
        public var firstSentence: String {
            summary.split(separator: ".", maxSplits: 1).first.map { String($0) + "." } ?? summary
        }

        /// How a binding is reached.
        public enum Kind: Sendable {
            /// `object:name(...)`.
            case method
            /// `object.name` (a value read on the object).
            case field
            /// `ember.name(...)` (a function of a table).
            case function
            /// `ember.name` (a value of a table).
            case value
        }
    }

    /// A group of entries, with a few words before them.
    public struct Group: Sendable {
        public let title: String
        public let introduction: String
        public let entries: [Entry]
    }

    /// What `help lua` and `docs/LUA.md` say before the entries.
    public static let overview = """
        lua CODE runs Lua 5.4 code, lua alone switches to Lua mode (Ctrl-D returns), run FILE runs a script. Scripts see db (the current client) and ember; calls that wait (get, once, wait, transaction, ember.sleep, ember.flush) suspend only the script while events go on. Names follow the Firebase SDKs; methods are called with `:`, fields read with `.`.
        """

    /// What `help lua` and `docs/LUA.md` say after the entries.
    public static let closing = """
        Values: JSON objects are tables with string keys, arrays are sequences, integers stay integers; ember.null is null inside a table (in update it deletes). Errors are tables with code and message (pcall gives them back; tostring gives "code: message"). Limits: --lua-memory MiB and an instruction limit per command (--lua-instructions); Ctrl-C stops a script. A long script never holds up another process on the same directory.
        """

    /// Every group, in the order of the reference.
    public static let groups: [Group] = [database, ember, references, queries, snapshots, handles, listeners, onDisconnect, serverValues, json]

    /// Every entry, in order.
    public static var entries: [Entry] { groups.flatMap(\.entries) }

    private static func method(
        _ object: String, _ name: String, _ signature: String, _ summary: String, errors: String = "", example: String, output: String
    ) -> Entry {
        Entry(object: object, name: name, kind: .method, signature: signature, summary: summary, errors: errors, example: example, output: output)
    }

    private static func field(_ object: String, _ name: String, _ signature: String, _ summary: String, example: String, output: String) -> Entry {
        Entry(object: object, name: name, kind: .field, signature: signature, summary: summary, errors: "", example: example, output: output)
    }

    private static func function(
        _ name: String, _ signature: String, _ summary: String, errors: String = "", example: String, output: String
    ) -> Entry {
        Entry(object: "ember", name: name, kind: .function, signature: signature, summary: summary, errors: errors, example: example, output: output)
    }

    // MARK: The groups

    static let database = Group(
        title: "Clients (`db`)",
        introduction: "`db` is the current client's database (`client NAME` or `as NAME` changes it); `ember.client(name)` gives another.",
        entries: [
            method(
                "db", "ref", "db:ref([path]) -> ref", "A reference to a location (the root without a path).",
                errors: "`invalid_path` for a path with `.`, `#`, `$`, `[`, `]` or control characters.",
                example: "print(db:ref('users/ada').path, db:ref().path)", output: "/users/ada\t/"),
            field("db", "name", "db.name -> string", "The client's name.", example: "print(db.name)", output: "main"),
            field(
                "db", "uid", "db.uid -> string | nil", "The uid of the user the client is signed in as (nil when not signed in).",
                example: "db:auth({uid = 'ada'}); print(db.uid); db:signOut(); print(db.uid)", output: "ada\nnil"),
            method(
                "db", "goOffline", "db:goOffline()", "Disconnects the client: writes apply locally and queue until it is online again.",
                example: "db:goOffline(); db:ref('q'):set(1); print(db:ref('q'):get():val()); db:goOnline(); ember.flush()", output: "1"),
            method(
                "db", "goOnline", "db:goOnline()", "Connects the client again: its queued writes go out in order.",
                example: "db:goOffline(); local h = db:ref('a'):set(1); db:goOnline(); print(h:wait())", output: "true"),
            method(
                "db", "auth", "db:auth(claims [, {expires = ms}])", "Signs the client in as the user the claims describe (uid, and any claims), with a token the rules read as `auth`.",
                errors: "`invalid_value` when claims has no string uid.",
                example: "db:auth({uid = 'ada', admin = true}); print(db.uid)", output: "ada"),
            method(
                "db", "signOut", "db:signOut()", "Signs the client out: the rules see `auth == null`.",
                example: "db:auth({uid = 'ada'}); db:signOut(); print(db.uid == nil)", output: "true"),
        ])

    static let ember = Group(
        title: "The `ember` table",
        introduction: "Time, other clients, the shell, and values that are not plain JSON.",
        entries: [
            function(
                "client", "ember.client(name [, {offline = bool, auth = claims}]) -> db", "Another client of the same server, created on first use (connecting unless offline; signed in with auth).",
                errors: "`invalid_client_name` for a name other than letters, digits, `_` and `-`.",
                example: "local bob = ember.client('bob'); bob:ref('from'):set('bob'):wait(); print(bob.name, db:ref('from'):get():val())", output: "bob\tbob"),
            function(
                "sleep", "ember.sleep(ms)", "Lets `ms` milliseconds pass (virtual time in tests), delivering events meanwhile.",
                errors: "`cannot_wait` inside a transaction function or a finalizer.",
                example: "local t = os.clock(); ember.sleep(10); print('slept')", output: "slept"),
            function(
                "flush", "ember.flush()", "Waits until every client has every answer it waits for and its events have run.",
                errors: "`cannot_wait` where waiting is not allowed.",
                example: "db:ref('n'):set(1); ember.flush(); print(db:ref('n'):get():val())", output: "1"),
            function(
                "pushId", "ember.pushId() -> string", "A new push id: 20 characters, in creation order, as `push` makes.",
                example: "local a, b = ember.pushId(), ember.pushId(); print(#a, a < b)", output: "20\ttrue"),
            function(
                "exec", "ember.exec(command) -> value", "Runs a shell command and returns its result as Lua data (what `--json` prints).",
                errors: "The command's own error, with its code (`syntax_error`, `permission_denied`, ...).",
                example: "ember.exec('set /x 5'); print(ember.exec('get /x'))", output: "5"),
            function(
                "inspect", "ember.inspect([client]) -> table", "What a client holds, as data: views, writes (with state), listens, transactions, onDisconnect, and the server's side (what `inspect` shows).",
                errors: "`unknown_client` for a client that does not exist.",
                example: "db:goOffline(); db:ref('q'):set(1); local t = ember.inspect(); print(#t.writes, t.writes[1].state); db:goOnline(); ember.flush()", output: "1\tqueued"),
            function(
                "exit", "ember.exit([status])", "Ends the script and the run, with an exit status (0 by default; true is 0, false 1).",
                errors: "`invalid_argument` for a status outside 0 to 255.",
                example: "print(pcall(ember.exit, 300))", output: "false\tember.exit: argument 1: an exit status goes from 0 to 255, not 300"),
            function(
                "command", "ember.command{name, args, help, run}", "Adds a shell command (a plugin's): name, a usage text args, a help text, and run(args), which gets the words typed after the name.",
                errors: "`reserved_name` for the name of a built-in command.",
                example: "ember.command{name = 'hello', help = 'says hello', run = function(args) print('hello ' .. (args[1] or 'you')) end}; ember.exec('hello ada')", output: "hello ada"),
            function(
                "rules", "ember.rules([text]) -> string | nil", "The rules document in force (nil: the open rules), or, with text, compiles it and puts it in force.",
                errors: "`invalid_rules` naming the line of a rule that does not compile; `needs_embedded_server` with no server.",
                example: "ember.rules('{\"rules\": {\".read\": true, \".write\": false}}'); print(pcall(function() return db:ref('x'):set(1):wait() end))", output: "true\tnil\tpermission denied at /x"),
            Entry(
                object: "ember", name: "null", kind: .value, signature: "ember.null", summary: "JSON null inside a table (a nil there would end an array); in update it deletes the child.",
                errors: "", example: "db:ref('p'):set({a = 1, b = 2}); db:ref('p'):update({a = ember.null}); print(db:ref('p'):get())",
                output: "{\n  \"b\": 2\n}"),
        ])

    static let references = Group(
        title: "References (`ref`)",
        introduction: "A reference names a location; it has the query methods too (below). Writes are optimistic: local listeners hear them before the server answers. Every write returns a handle and takes an optional last function, called with the error (nil when it landed).",
        entries: [
            field("ref", "key", "ref.key -> string | nil", "The last key of the path (nil at the root).", example: "print(db:ref('users/ada').key, db:ref().key)", output: "ada\tnil"),
            field("ref", "path", "ref.path -> string", "The path, from the root.", example: "print(db:ref('users'):child('ada/name').path)", output: "/users/ada/name"),
            method("ref", "parent", "ref:parent() -> ref | nil", "The parent location (nil at the root).", example: "print(db:ref('users/ada'):parent().path, db:ref():parent())", output: "/users\tnil"),
            method("ref", "root", "ref:root() -> ref", "The root location.", example: "print(db:ref('users/ada'):root().path)", output: "/"),
            method(
                "ref", "child", "ref:child(path) -> ref", "A location below, by a relative path (may be deep: `a/b`).",
                errors: "`invalid_path` for a bad key.", example: "print(db:ref('users'):child('ada/age').path)", output: "/users/ada/age"),
            method(
                "ref", "set", "ref:set(value [, priority] [, onComplete]) -> handle", "Replaces the data at the location (nil or ember.null removes it).",
                errors: "`invalid_value` naming the bad field (a function, a cycle, a bad key); `permission_denied` from the rules (through the handle or onComplete).",
                example: "db:ref('users/ada'):set({name = 'Ada', born = 1815}):wait(); print(db:ref('users/ada/born'):get():val())", output: "1815"),
            method(
                "ref", "setWithPriority", "ref:setWithPriority(value, priority [, onComplete]) -> handle", "Replaces the data and sets its priority (a number, a string or nil).",
                errors: "`invalid_priority` for another kind of priority.",
                example: "db:ref('t'):setWithPriority('x', 3):wait(); print(db:ref('t'):get():getPriority())", output: "3"),
            method(
                "ref", "setPriority", "ref:setPriority(priority [, onComplete]) -> handle", "Sets the priority of the data at the location.",
                example: "db:ref('t'):set('x'); db:ref('t'):setPriority('high'):wait(); print(db:ref('t'):get():getPriority())", output: "high"),
            method(
                "ref", "update", "ref:update(table [, onComplete]) -> handle", "Sets several children at once, all or none; keys may be deep paths (`['a/b'] = 1`), ember.null removes.",
                errors: "`invalid_value` for an empty key or overlapping paths.",
                example: "db:ref('u'):set({a = 1, b = 2}); db:ref('u'):update({b = 3, ['c/d'] = 4}):wait(); print(db:ref('u'):get())",
                output: "{\n  \"a\": 1,\n  \"b\": 3,\n  \"c\": {\n    \"d\": 4\n  }\n}"),
            method(
                "ref", "push", "ref:push([value] [, onComplete]) -> ref, handle", "A child with a new push id (in creation order); writes value there when given.",
                example: "local child = db:ref('log'):push('first'); print(#child.key, db:ref('log'):get():numChildren())", output: "20\t1"),
            method(
                "ref", "remove", "ref:remove([onComplete]) -> handle", "Removes the data at the location.",
                example: "db:ref('gone'):set(1); db:ref('gone'):remove():wait(); print(db:ref('gone'):get():exists())", output: "false"),
            method(
                "ref", "transaction", "ref:transaction(update [, onComplete] [, options]) -> committed, snap", "Runs update(current) until the write commits without anyone writing between (it runs again with the new value when they did); return nil to abort, ember.null to delete. With onComplete(err, committed, snap) it returns at once; options {applyLocally = false} keeps its runs from showing locally.",
                errors: "`max_retries` after 25 attempts; `cannot_wait` for the update function (it must not wait); the update's own Lua error.",
                example: "db:ref('c'):set(1); local ok, snap = db:ref('c'):transaction(function(v) return (v or 0) + 1 end); print(ok, snap:val())", output: "true\t2"),
            method(
                "ref", "onDisconnect", "ref:onDisconnect() -> onDisconnect", "The writes the server makes here when this client's connection goes (presence).",
                example: "db:ref('presence/main'):onDisconnect():set('gone'):wait(); print('registered')", output: "registered"),
        ])

    static let queries = Group(
        title: "Queries (`query`, and every `ref`)",
        introduction: "A query orders a location's children, keeps a range and a limit; each modifier returns a new query. References and queries read and listen alike.",
        entries: [
            field("query", "ref", "query.ref -> ref", "The location of the query.", example: "print(db:ref('s'):orderByValue().ref.path)", output: "/s"),
            field("query", "path", "query.path -> string", "The path of the location.", example: "print(db:ref('s'):limitToFirst(1).path)", output: "/s"),
            field("query", "key", "query.key -> string | nil", "The last key of the location.", example: "print(db:ref('a/s'):limitToFirst(1).key)", output: "s"),
            method("ref", "orderByKey", "ref:orderByKey() -> query", "Orders children by key (integer-like keys first, numerically).", example: "db:ref('k'):set({b = 1, a = 2, ['10'] = 3, ['9'] = 4}); local t = {}; for c in db:ref('k'):orderByKey():get():children() do t[#t + 1] = c.key end; print(table.concat(t, ' '))", output: "9 10 a b"),
            method("ref", "orderByValue", "ref:orderByValue() -> query", "Orders children by their own value (null, false, true, numbers, strings, objects).", example: "db:ref('v'):set({a = 3, b = 1, c = 2}); local t = {}; for c in db:ref('v'):orderByValue():get():children() do t[#t + 1] = c.key end; print(table.concat(t, ' '))", output: "b c a"),
            method("ref", "orderByPriority", "ref:orderByPriority() -> query", "Orders children by priority (the default order).", example: "db:ref('p/a'):setWithPriority(1, 2); db:ref('p/b'):setWithPriority(2, 1); local t = {}; for c in db:ref('p'):orderByPriority():get():children() do t[#t + 1] = c.key end; print(table.concat(t, ' '))", output: "b a"),
            method(
                "ref", "orderByChild", "ref:orderByChild(path) -> query", "Orders children by the value at path under each (deep paths allowed).",
                errors: "`invalid_query` for a second order on one query.",
                example: "db:ref('d'):set({rex = {h = 5}, ptero = {h = 1}}); local t = {}; for c in db:ref('d'):orderByChild('h'):get():children() do t[#t + 1] = c.key end; print(table.concat(t, ' '))", output: "ptero rex"),
            method("ref", "limitToFirst", "ref:limitToFirst(n) -> query", "Keeps the first n children in the order.", errors: "`invalid_query` for n below 1 or a second limit.", example: "db:ref('l'):set({a = 1, b = 2, c = 3}); print(db:ref('l'):orderByKey():limitToFirst(2):get():numChildren())", output: "2"),
            method("ref", "limitToLast", "ref:limitToLast(n) -> query", "Keeps the last n children in the order.", errors: "`invalid_query` for n below 1 or a second limit.", example: "db:ref('l'):set({a = 1, b = 2, c = 3}); for c in db:ref('l'):orderByValue():limitToLast(1):get():children() do print(c.key) end", output: "c"),
            method("ref", "startAt", "ref:startAt(value [, key]) -> query", "Keeps children from value on in the order (key breaks ties).", example: "db:ref('r'):set({a = 1, b = 2, c = 3}); print(db:ref('r'):orderByValue():startAt(2):get():numChildren())", output: "2"),
            method("ref", "startAfter", "ref:startAfter(value [, key]) -> query", "Keeps children after value.", example: "db:ref('r'):set({a = 1, b = 2, c = 3}); print(db:ref('r'):orderByValue():startAfter(2):get():numChildren())", output: "1"),
            method("ref", "endAt", "ref:endAt(value [, key]) -> query", "Keeps children up to value.", example: "db:ref('r'):set({a = 1, b = 2, c = 3}); print(db:ref('r'):orderByValue():endAt(2):get():numChildren())", output: "2"),
            method("ref", "endBefore", "ref:endBefore(value [, key]) -> query", "Keeps children before value.", example: "db:ref('r'):set({a = 1, b = 2, c = 3}); print(db:ref('r'):orderByValue():endBefore(2):get():numChildren())", output: "1"),
            method("ref", "equalTo", "ref:equalTo(value [, key]) -> query", "Keeps the children equal to value.", example: "db:ref('r'):set({a = 1, b = 2, c = 2}); print(db:ref('r'):orderByValue():equalTo(2):get():numChildren())", output: "2"),
            method(
                "ref", "get", "ref:get() -> snap", "Reads once: the server's data when connected, the cache's when not (waits for the connection a moment).",
                errors: "`offline` when not connected and nothing is cached; `permission_denied` from the rules.",
                example: "db:ref('g'):set('hi'); print(db:ref('g'):get():val())", output: "hi"),
            method(
                "ref", "once", "ref:once([event]) -> snap [, prevKey]", "Waits for the first event (value by default) and returns its snapshot.",
                example: "db:ref('o'):set({a = 1}); local s = db:ref('o'):once('child_added'); print(s.key, s:val())", output: "a\t1"),
            method(
                "ref", "on", "ref:on(event, callback [, cancelled]) -> listener", "Listens: callback(snap [, prevKey]) runs for each event (value, child_added, child_changed, child_removed, child_moved) as it happens, never inside another callback; snap.origin says why. cancelled(err) runs if the server cancels the listen.",
                errors: "`invalid_argument` for an unknown event; a listen the rules refuse cancels it (the second function gets the error).",
                example: "db:ref('w'):on('value', function(s) print(s.origin, s:val()) end); db:ref('w'):set(1); ember.flush()", output: "local\t1"),
            method(
                "ref", "off", "ref:off([listener | event])", "Removes a listener, those of one event, or every listener at the location.",
                example: "local n = 0; local l = db:ref('f'):on('value', function() n = n + 1 end); db:ref('f'):off(l); db:ref('f'):set(1); ember.flush(); print(n)", output: "0"),
            method(
                "ref", "keepSynced", "ref:keepSynced(bool)", "Keeps the location's data in the cache, synchronised, even with nothing listening.",
                example: "db:ref('k'):keepSynced(true); db:ref('k'):set(1); db:goOffline(); print(db:ref('k'):get():val()); db:goOnline()", output: "1"),
        ])

    static let snapshots = Group(
        title: "Snapshots (`snap`)",
        introduction: "The data at a location at one moment, children in the query's order. `tostring(snap)` is its pretty JSON.",
        entries: [
            field("snap", "key", "snap.key -> string | nil", "The last key of the snapshot's path.", example: "db:ref('a/b'):set(1); print(db:ref('a/b'):get().key)", output: "b"),
            field("snap", "ref", "snap.ref -> ref", "A reference to the snapshot's location.", example: "db:ref('a/b'):set(1); print(db:ref('a/b'):get().ref.path)", output: "/a/b"),
            field(
                "snap", "origin", "snap.origin -> string | nil", "For a listener's event, why it happened: local (an optimistic write), server, rollback (a refused write taken back) or cache (the persisted cache); nil for a read.",
                example: "db:ref('z'):on('value', function(s) print(s.origin) end); db:ref('z'):set(1); ember.flush(); print(db:ref('z'):get().origin)", output: "local\nnil"),
            field("snap", "client", "snap.client -> string", "The client the snapshot belongs to.", example: "db:ref('c'):set(1); print(db:ref('c'):get().client)", output: "main"),
            method("snap", "val", "snap:val() -> value", "The data as Lua values (nil when there is none; a sequence where the data is an array).", example: "db:ref('v'):set({1, 2, 3}); print(#db:ref('v'):get():val())", output: "3"),
            method("snap", "exportVal", "snap:exportVal() -> value", "The data with priorities (`.priority`, `.value`).", example: "db:ref('e'):setWithPriority('x', 1); local v = db:ref('e'):get():exportVal(); print(v['.value'], v['.priority'])", output: "x\t1"),
            method("snap", "exists", "snap:exists() -> bool", "Whether there is data.", example: "print(db:ref('nothing'):get():exists())", output: "false"),
            method("snap", "child", "snap:child(path) -> snap", "The data below, by a relative path.", errors: "`invalid_path` for a bad key.", example: "db:ref('u'):set({a = {b = 7}}); print(db:ref('u'):get():child('a/b'):val())", output: "7"),
            method("snap", "hasChild", "snap:hasChild(path) -> bool", "Whether there is data below path.", example: "db:ref('u'):set({a = 1}); print(db:ref('u'):get():hasChild('a'), db:ref('u'):get():hasChild('b'))", output: "true\tfalse"),
            method("snap", "hasChildren", "snap:hasChildren() -> bool", "Whether the data has children.", example: "db:ref('u'):set({a = 1}); print(db:ref('u'):get():hasChildren(), db:ref('u/a'):get():hasChildren())", output: "true\tfalse"),
            method("snap", "numChildren", "snap:numChildren() -> integer", "How many children.", example: "db:ref('u'):set({a = 1, b = 2}); print(db:ref('u'):get():numChildren())", output: "2"),
            method("snap", "children", "snap:children() -> iterator", "The children in the query's order, for a generic for.", example: "db:ref('u'):set({b = 2, a = 1}); local t = {}; for c in db:ref('u'):get():children() do t[#t + 1] = c.key .. '=' .. c:val() end; print(table.concat(t, ' '))", output: "a=1 b=2"),
            method("snap", "forEach", "snap:forEach(function(child) ... end) -> bool", "Calls the function with each child in order; stops when it returns true (and returns true).", example: "db:ref('u'):set({a = 1, b = 2}); print(db:ref('u'):get():forEach(function(c) return c.key == 'a' end))", output: "true"),
            method("snap", "getPriority", "snap:getPriority() -> number | string | nil", "The priority of the data.", example: "db:ref('p'):setWithPriority(1, 'high'); print(db:ref('p'):get():getPriority())", output: "high"),
        ])

    static let handles = Group(
        title: "Write handles (`handle`)",
        introduction: "Every write returns a handle.",
        entries: [
            method(
                "handle", "wait", "handle:wait([timeout_ms]) -> true | nil, err", "Waits for the server's answer: true when the write landed, nil and the error when it was refused (or the timeout passed: code `timeout`, the write stays queued).",
                example: "db:goOffline(); local ok, err = db:ref('a'):set(1):wait(10); print(ok, err.code); db:goOnline(); ember.flush()", output: "nil\ttimeout"),
            field("handle", "done", "handle.done -> bool", "Whether the server answered.", example: "local h = db:ref('a'):set(1); h:wait(); print(h.done)", output: "true"),
        ])

    static let listeners = Group(
        title: "Listeners (`listener`)",
        introduction: "`ref:on` returns a listener; a `local l <close> = ref:on(...)` stops it at the end of its block.",
        entries: [
            method("listener", "off", "listener:off()", "Stops the listener.", example: "local l = db:ref('x'):on('value', function() end); l:off(); print(l.active)", output: "false"),
            field("listener", "active", "listener.active -> bool", "Whether it still listens (false after off, or a cancelled listen).", example: "local l = db:ref('x'):on('value', function() end); print(l.active); l:off()", output: "true"),
        ])

    static let onDisconnect = Group(
        title: "onDisconnect (`onDisconnect`)",
        introduction: "Writes the server makes when the client's connection goes, cleanly or not (it notices a silent drop after its timeout). Each returns a handle.",
        entries: [
            method("onDisconnect", "set", "onDisconnect:set(value [, onComplete]) -> handle", "Sets the location when the connection goes.", example: "db:ref('s'):onDisconnect():set('offline'):wait(); db:goOffline(); db:goOnline(); ember.flush(); print(db:ref('s'):get():val())", output: "offline"),
            method("onDisconnect", "setWithPriority", "onDisconnect:setWithPriority(value, priority [, onComplete]) -> handle", "Sets the location and its priority when the connection goes.", example: "db:ref('s'):onDisconnect():setWithPriority('x', 2):wait(); db:goOffline(); db:goOnline(); ember.flush(); print(db:ref('s'):get():getPriority())", output: "2"),
            method("onDisconnect", "update", "onDisconnect:update(table [, onComplete]) -> handle", "Updates children when the connection goes.", example: "db:ref('s'):onDisconnect():update({online = false}):wait(); db:goOffline(); db:goOnline(); ember.flush(); print(db:ref('s/online'):get():val())", output: "false"),
            method("onDisconnect", "remove", "onDisconnect:remove([onComplete]) -> handle", "Removes the location when the connection goes.", example: "db:ref('s'):set(1); db:ref('s'):onDisconnect():remove():wait(); db:goOffline(); db:goOnline(); ember.flush(); print(db:ref('s'):get():exists())", output: "false"),
            method("onDisconnect", "cancel", "onDisconnect:cancel([onComplete]) -> handle", "Forgets the operations registered at and below the location.", example: "db:ref('s'):set(1); local od = db:ref('s'):onDisconnect(); od:remove():wait(); od:cancel():wait(); db:goOffline(); db:goOnline(); ember.flush(); print(db:ref('s'):get():val())", output: "1"),
        ])

    static let json = Group(
        title: "JSON text (`ember.json`)",
        introduction: "JSON text and Lua values, with the conversions of values (nil and ember.null are null).",
        entries: [
            Entry(
                object: "ember.json", name: "encode", kind: .function, signature: "ember.json.encode(value [, pretty]) -> string",
                summary: "The value as JSON text (indented when pretty is true).", errors: "`invalid_value` naming a field that is not JSON (a function, a cycle).",
                example: "print(ember.json.encode({a = 1, b = {true, ember.null}}))", output: "{\"a\":1,\"b\":[true,null]}"),
            Entry(
                object: "ember.json", name: "decode", kind: .function, signature: "ember.json.decode(text) -> value",
                summary: "The Lua value of JSON text.", errors: "`malformed_json` saying where the text is wrong.",
                example: "local v = ember.json.decode('{\"a\": [1, 2]}'); print(#v.a, math.type(v.a[1]))", output: "2\tinteger"),
        ])

    static let serverValues = Group(
        title: "Server values (`ember.ServerValue`)",
        introduction: "Values the server fills in when the write lands.",
        entries: [
            Entry(
                object: "ember.ServerValue", name: "TIMESTAMP", kind: .value, signature: "ember.ServerValue.TIMESTAMP", summary: "The server's time when the write lands (milliseconds since 1970).",
                errors: "", example: "db:ref('t'):set(ember.ServerValue.TIMESTAMP):wait(); print(math.type(db:ref('t'):get():val()))", output: "integer"),
            Entry(
                object: "ember.ServerValue", name: "increment", kind: .function, signature: "ember.ServerValue.increment(n)", summary: "Adds n to the number on the server, atomically (a missing or non-number value counts as 0).",
                errors: "`invalid_value` for something other than a number.", example: "db:ref('n'):set(1); db:ref('n'):set(ember.ServerValue.increment(2)):wait(); print(db:ref('n'):get():val())", output: "3"),
        ])

    // MARK: Renderings

    /// `docs/LUA.md`: every entry with its signature, what it does, its errors and its example.
    public static var markdown: String {
        var text = """
            # Lua in Ember: the reference

            <!-- Written from Sources/EmberLua/LuaReference.swift (EMBER_RECORD_DOCS=1 swift test --filter LuaReferenceTests); edit that file, not this one. The tests run every example below. -->

            \(overview)

            """
        for group in groups {
            text += "\n## \(group.title)\n\n\(group.introduction)\n"
            for entry in group.entries {
                text += "\n### `\(entry.signature)`\n\n\(entry.summary)\n"
                if !entry.errors.isEmpty { text += "\nErrors: \(entry.errors)\n" }
                text += "\n```lua\n\(entry.example)\n```\n\nprints:\n\n```\n\(entry.output)\n```\n"
            }
        }
        text += "\n## Values, errors and limits\n\n\(closing)\n"
        return text
    }

}

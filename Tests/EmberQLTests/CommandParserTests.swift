import EmberCore
import Testing

@testable import EmberQL

@Suite struct CommandParserTests {
    @Test func blankInputIsNoCommand() throws {
        for source in ["", "   ", "\n\n", "# a comment", "  # a comment\n# another\n"] {
            #expect(try CommandParser.parse(source) == nil, "\(source)")
        }
    }

    @Test func commandNamesAreCaseInsensitive() throws {
        #expect(try parsed("PWD") == .pwd)
        #expect(try parsed("Quit") == .exit)
        #expect(try parsed("SET /a 1") == .set(PathExpression("/a", at: at(5)), ValueExpression(1, at: at(8)), priority: nil))
        #expect(try parsed("  pwd  # where am I") == .pwd)
    }

    @Test func get() throws {
        #expect(try parsed("get") == .get(PathExpression("", at: at(4)), .none))
        #expect(try parsed("get   ") == .get(PathExpression("", at: at(4)), .none))
        #expect(try parsed("get /users") == .get(PathExpression("/users", at: at(5)), .none))
        #expect(try parsed("get ../bob/name") == .get(PathExpression("../bob/name", at: at(5)), .none))
        #expect(try parsed("get \"my key/x\"") == .get(PathExpression("my key/x", at: at(5)), .none))
        #expect(try parsed("get /a # comment") == .get(PathExpression("/a", at: at(5)), .none))
        #expect(try parsed("ls .") == .ls(PathExpression(".", at: at(4)), .none))
        let ordered = try QueryParams().orderedBy(.key)
        #expect(try parsed("get orderBy key") == .get(PathExpression("", at: at(5)), QueryExpression(params: ordered, text: "orderBy key")))
        #expect(try parsed("ls ./orderBy") == .ls(PathExpression("./orderBy", at: at(4)), .none))
        #expect(try parsed("ls 'orderBy'") == .ls(PathExpression("orderBy", at: at(4)), .none))
    }

    @Test func tree() throws {
        #expect(try parsed("tree") == .tree(PathExpression("", at: at(5)), depth: nil))
        #expect(try parsed("tree /a") == .tree(PathExpression("/a", at: at(6)), depth: nil))
        #expect(try parsed("tree /a DEPTH 0") == .tree(PathExpression("/a", at: at(6)), depth: 0))
        #expect(try parsed("tree depth 2") == .tree(PathExpression("", at: at(6)), depth: 2))
    }

    @Test func set() throws {
        #expect(
            try parsed("set /users/alice {name: 'Alice', age: 31, joined: now}")
                == .set(
                    PathExpression("/users/alice", at: at(5)),
                    ValueExpression(["name": "Alice", "age": 31, "joined": .serverTimestamp], at: at(18)), priority: nil))
        #expect(
            try parsed("set a 5 priority 'p'")
                == .set(PathExpression("a", at: at(5)), ValueExpression(5, at: at(7)), priority: ValueExpression("p", at: at(18))))
        #expect(
            try parsed("set a 5 PRIORITY null")
                == .set(PathExpression("a", at: at(5)), ValueExpression(5, at: at(7)), priority: ValueExpression(.null, at: at(18))))
        #expect(
            try parsed("set a 5 priority now")
                == .set(PathExpression("a", at: at(5)), ValueExpression(5, at: at(7)), priority: ValueExpression(.serverTimestamp, at: at(18))))
        #expect(try parsed("set a null") == .set(PathExpression("a", at: at(5)), ValueExpression(.null, at: at(7)), priority: nil))
    }

    @Test func multiLineValues() throws {
        let source = "set /a {\n  name: 'x', # the name\n  n: [1,\n    2],\n}"
        #expect(
            try parsed(source)
                == .set(PathExpression("/a", at: at(5)), ValueExpression(["name": "x", "n": [1, 2]], at: at(8)), priority: nil))
    }

    @Test func update() throws {
        #expect(
            try parsed("update /a {\"b/c\": 1, d/e: 2, f: null}")
                == .update(PathExpression("/a", at: at(8)), ValueExpression(["b/c": 1, "d/e": 2, "f": .null], at: at(11))))
    }

    @Test func push() throws {
        #expect(try parsed("push /m") == .push(PathExpression("/m", at: at(6)), nil))
        #expect(try parsed("push /m # nothing") == .push(PathExpression("/m", at: at(6)), nil))
        #expect(try parsed("push /m {t: 'hi'}") == .push(PathExpression("/m", at: at(6)), ValueExpression(["t": "hi"], at: at(9))))
    }

    @Test func remove() throws {
        #expect(try parsed("remove /a") == .remove(PathExpression("/a", at: at(8)), confirmed: false))
        #expect(try parsed("rm -y /a") == .remove(PathExpression("/a", at: at(7)), confirmed: true))
        #expect(try parsed("RM -Y b") == .remove(PathExpression("b", at: at(7)), confirmed: true))
    }

    @Test func increment() throws {
        #expect(try parsed("increment /n") == .increment(PathExpression("/n", at: at(11)), by: ValueExpression(1, at: at(13))))
        #expect(try parsed("increment /n -2") == .increment(PathExpression("/n", at: at(11)), by: ValueExpression(-2, at: at(14))))
        #expect(try parsed("increment /n 0.5") == .increment(PathExpression("/n", at: at(11)), by: ValueExpression(0.5, at: at(14))))
    }

    @Test func transactionTakesLuaVerbatim() throws {
        let source = "transaction /counter function(v)\n  return (v or 0) + #list # not a comment\nend\n"
        #expect(
            try parsed(source)
                == .transaction(
                    PathExpression("/counter", at: at(13)),
                    function: Word("function(v)\n  return (v or 0) + #list # not a comment\nend", at: at(22))))
        #expect(
            try parsed("transaction '/a b'\n  function(v) return v end")
                == .transaction(PathExpression("/a b", at: at(13)), function: Word("function(v) return v end", at: at(3, line: 2, offset: 21))))
    }

    @Test func priority() throws {
        #expect(try parsed("priority /a 10") == .priority(PathExpression("/a", at: at(10)), ValueExpression(10, at: at(13))))
        #expect(try parsed("priority /a 'high'") == .priority(PathExpression("/a", at: at(10)), ValueExpression("high", at: at(13))))
    }

    @Test func exportAndImport() throws {
        #expect(try parsed("export") == .export(PathExpression("", at: at(7)), file: nil))
        #expect(try parsed("export /a") == .export(PathExpression("/a", at: at(8)), file: nil))
        #expect(try parsed("export /a out.json") == .export(PathExpression("/a", at: at(8)), file: Word("out.json", at: at(11))))
        #expect(try parsed("import /a 'my file.json'") == .import(PathExpression("/a", at: at(8)), file: Word("my file.json", at: at(11))))
    }

    @Test func watch() throws {
        #expect(try parsed("watch") == .watch(PathExpression("", at: at(6)), .none, events: []))
        #expect(
            try parsed("watch /s child_added CHILD_ADDED value child_removed")
                == .watch(PathExpression("/s", at: at(7)), .none, events: [.childAdded, .value, .childRemoved]))
        #expect(try parsed("watch child_moved") == .watch(PathExpression("", at: at(7)), .none, events: [.childMoved]))
        let top = try QueryParams().orderedBy(.value).limitedToLast(3)
        #expect(
            try parsed("watch /s orderBy value child_changed limitToLast 3")
                == .watch(
                    PathExpression("/s", at: at(7)), QueryExpression(params: top, text: "orderBy value limitToLast 3"),
                    events: [.childChanged]))
    }

    @Test func unwatchAndWatches() throws {
        #expect(try parsed("unwatch 3") == .unwatch(.id(3)))
        #expect(try parsed("unwatch ALL") == .unwatch(.all))
        #expect(try parsed("watches") == .watches)
    }

    @Test func keepSynced() throws {
        #expect(try parsed("keepsynced /a on") == .keepSynced(PathExpression("/a", at: at(12)), true))
        #expect(try parsed("KeepSynced /a OFF") == .keepSynced(PathExpression("/a", at: at(12)), false))
        #expect(try parsed("keepsynced /a true") == .keepSynced(PathExpression("/a", at: at(12)), true))
        #expect(try parsed("keepsynced /a false") == .keepSynced(PathExpression("/a", at: at(12)), false))
    }

    @Test func connection() throws {
        #expect(try parsed("offline") == .offline)
        #expect(try parsed("online") == .online)
        #expect(try parsed("drop") == .drop)
        #expect(try parsed("status") == .status)
    }

    @Test func onDisconnect() throws {
        let path = PathExpression("/p", at: at(14))
        #expect(try parsed("ondisconnect /p set {at: now} priority 1") == .onDisconnect(
            path, .set(ValueExpression(["at": .serverTimestamp], at: at(21)), priority: ValueExpression(1, at: at(40)))))
        #expect(try parsed("ondisconnect /p SET false") == .onDisconnect(path, .set(ValueExpression(false, at: at(21)), priority: nil)))
        #expect(try parsed("ondisconnect /p update {a: 1}") == .onDisconnect(path, .update(ValueExpression(["a": 1], at: at(24)))))
        #expect(try parsed("ondisconnect /p remove") == .onDisconnect(path, .remove))
        #expect(try parsed("onDisconnect /p cancel") == .onDisconnect(path, .cancel))
    }

    @Test func location() throws {
        #expect(try parsed("cd") == .cd(PathExpression("", at: at(3))))
        #expect(try parsed("cd ..") == .cd(PathExpression("..", at: at(4))))
        #expect(try parsed("cd 'a b'") == .cd(PathExpression("a b", at: at(4))))
        #expect(try parsed("pwd") == .pwd)
    }

    @Test func clientsAndTheServer() throws {
        #expect(try parsed("client alice") == .client(Word("alice", at: at(8))))
        #expect(try parsed("client 'big bob'") == .client(Word("big bob", at: at(8))))
        #expect(try parsed("clients") == .clients)
        #expect(try parsed("server clock skew -500") == .serverClockSkew(-500))
        #expect(try parsed("SERVER Clock SKEW 250") == .serverClockSkew(250))
        #expect(try parsed("server latency 0") == .serverLatency(0))
        #expect(try parsed("server latency 200") == .serverLatency(200))
        #expect(try parsed("server timeout 500") == .serverTimeout(500))
        #expect(try parsed("sleep 1500") == .sleep(1500))
        #expect(try parsed("SLEEP 0") == .sleep(0))
    }

    @Test func asRunsANestedCommandWithPositionsInTheWholeInput() throws {
        #expect(
            try parsed("as bob set /presence/bob true")
                == .as(Word("bob", at: at(4)), .set(PathExpression("/presence/bob", at: at(12)), ValueExpression(true, at: at(26)), priority: nil)))
        #expect(try parsed("as bob get") == .as(Word("bob", at: at(4)), .get(PathExpression("", at: at(11)), .none)))
        #expect(try parsed("AS bob lua print(#x)") == .as(Word("bob", at: at(4)), .lua(Word("print(#x)", at: at(12)))))
        #expect(
            try parsed("as bob greet you")
                == .as(Word("bob", at: at(4)), .plugin(Word("greet", at: at(8)), arguments: Word("you", at: at(14)))))
    }

    @Test func lua() throws {
        #expect(try parsed("lua") == .lua(nil))
        #expect(try parsed("lua   \n ") == .lua(nil))
        #expect(try parsed("lua print(#t) -- length # too") == .lua(Word("print(#t) -- length # too", at: at(5))))
        #expect(try parsed("lua\nfor i = 1, 3 do\n  print(i)\nend") == .lua(Word("for i = 1, 3 do\n  print(i)\nend", at: at(1, line: 2, offset: 4))))
    }

    @Test func run() throws {
        #expect(try parsed("run seed.lua") == .run(Word("seed.lua", at: at(5)), arguments: []))
        #expect(
            try parsed("run seed.lua 100 'two words' {x} # comment")
                == .run(Word("seed.lua", at: at(5)), arguments: [Word("100", at: at(14)), Word("two words", at: at(18)), Word("{x}", at: at(30))]))
    }

    @Test func theRest() throws {
        #expect(try parsed("plugins") == .plugins)
        #expect(try parsed("help") == .help(nil))
        #expect(try parsed("help set") == .help(Word("set", at: at(6))))
        #expect(try parsed("timing") == .timing(nil))
        #expect(try parsed("timing on") == .timing(true))
        #expect(try parsed("timing OFF") == .timing(false))
        #expect(try parsed("output") == .output(nil))
        #expect(try parsed("output JSON") == .output(.json))
        #expect(try parsed("output table") == .output(.table))
        #expect(try parsed("output pretty") == .output(.pretty))
        #expect(try parsed("history") == .history)
        #expect(try parsed("clear") == .clear)
        #expect(try parsed("exit") == .exit)
        #expect(try parsed("quit") == .exit)
    }

    @Test func anyOtherWordIsAPluginCommand() throws {
        #expect(try parsed("greet") == .plugin(Word("greet", at: at(1)), arguments: nil))
        #expect(try parsed("greet   # nobody") == .plugin(Word("greet", at: at(1)), arguments: nil))
        #expect(try parsed("Greet  alice  {x: 1} # hi") == .plugin(Word("Greet", at: at(1)), arguments: Word("alice  {x: 1}", at: at(8))))
        #expect(try parsed("greet '# kept' o'brien") == .plugin(Word("greet", at: at(1)), arguments: Word("'# kept' o'brien", at: at(7))))
        #expect(try parsed("/users") == .plugin(Word("/users", at: at(1)), arguments: nil))
    }

    @Test func commandNames() throws {
        #expect(try parsed("rm /a").name == "remove")
        #expect(try parsed("quit").name == "exit")
        #expect(try parsed("server latency 1").name == "server")
        #expect(try parsed("greet x").name == "greet")
        #expect(try parsed("keepsynced /a on").name == "keepsynced")
    }
}

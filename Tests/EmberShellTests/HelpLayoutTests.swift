import EmberCore
import EmberQL
@testable import EmberShell
import EmberTestSupport
import Testing

/// Help fits 80 columns without breaking words, and the topics exist (issue 20).
@Suite struct HelpLayoutTests {
    @Test func wrapsAtWordBoundariesOnly() {
        let layout = HelpLayout(width: 30)
        let text = "the quick brown fox jumps over the lazy dog and keeps running far away"
        let lines = layout.wrap(text, width: 20)
        #expect(lines.allSatisfy { $0.count <= 20 })
        #expect(lines.joined(separator: " ") == text)
        #expect(layout.wrap("a-very-long-unbreakable-word here", width: 10) == ["a-very-long-unbreakable-word", "here"])
    }

    @Test func aLongUsageTakesItsOwnLineAndSummariesAlign() {
        let layout = HelpLayout(width: 40, maximumUsageWidth: 10)
        let lines = layout.columns([("get PATH", "reads a location once"), ("ondisconnect PATH set VALUE", "registers a write")])
        #expect(lines == ["  get PATH  reads a location once", "  ondisconnect PATH set VALUE", "            registers a write"])
    }

    @Test func everyLineOfHelpFitsEightyColumns() throws {
        let (shell, output) = try makeTestShell()
        defer { shell.close() }
        var pages = ["help"] + HelpTopic.all.map { "help " + $0.name }
        pages += shell.commandRegistry.map { "help " + $0.name }
        for page in pages {
            #expect(shell.execute(page), "\(page)")
            let text = output.take()
            #expect(!text.isEmpty)
            for line in text.split(separator: "\n") {
                #expect(line.count <= 80, "\(page): \(line.count) columns: \(line)")
            }
        }
    }

    @Test func theTopicsExistAndHelpListsThem() throws {
        let (shell, output) = try makeTestShell()
        defer { shell.close() }
        shell.execute("help")
        let index = output.take()
        #expect(index.contains("help query"))
        #expect(index.contains("help values"))
        #expect(index.contains("help lua"))
        shell.execute("help query")
        #expect(output.take().contains("orderBy child PATH"))
        shell.execute("help values")
        #expect(output.take().contains("increment(N)"))
        shell.execute("help lua")
        #expect(output.take().contains("ember.exec(command)"))
        #expect(!shell.execute("help valeus"))
        #expect(output.take().contains("did you mean values?"))
    }
}

/// `help lua` names only what exists: each `x:method(` is a function of that object and each
/// `x.field` a field that has a value (issue 39: it listed r:key(), r:path() and snap:key(),
/// which are fields, and failed).
@Suite struct HelpLuaNamesTests {
    @Test func everyMethodAndFieldHelpLuaNamesExists() throws {
        let (shell, output) = try makeTestShell()
        defer { shell.close() }
        shell.execute("help lua")
        let text = output.take()
        #expect(shell.executeLua("r = db:ref('a/b'); r:set(1):wait(); snap = r:get(); h = r:set(2); q = r:orderByKey(); od = r:onDisconnect()"))
        #expect(shell.executeLua("received = nil; l = r:on('value', function(s) received = s end); ember.flush()"))
        _ = output.take()
        let objects = [
            "db": "db", "ref": "r", "query": "q", "snap": "snap", "handle": "h", "listener": "l", "onDisconnect": "od", "ember": "ember",
        ]
        let pattern = /\b(db|ref|query|snap|handle|listener|onDisconnect|ember)([:.])([A-Za-z]+)/
        var checked = 0
        for match in text.matches(of: pattern) {
            let (object, separator, name) = (String(match.output.1), String(match.output.2), String(match.output.3))
            guard let variable = objects[object] else { continue }
            // What snap.origin reads is a listener's snapshot; db.uid is nil until signed in.
            let subject = object == "snap" && name == "origin" ? "received" : variable
            let check = separator == ":" ? "type(\(subject).\(name)) == 'function'" : name == "uid" ? "true" : "\(subject).\(name) ~= nil"
            #expect(shell.executeLua("assert(\(check), '\(object)\(separator)\(name)')"), "help lua names \(object)\(separator)\(name), which is not there: \(output.take())")
            checked += 1
        }
        #expect(checked >= 20, "help lua names \(checked) methods and fields")
    }
}

/// Lua mode completes the methods of Ember objects (issue 20: `db:`, `r:`, `snap:` completed
/// nothing).
@Suite struct LuaMethodCompletionTests {
    @Test func completesMethodsAndFieldsOfEmberObjects() throws {
        let (shell, _) = try makeTestShell()
        defer { shell.close() }
        #expect(shell.executeLua("r = db:ref('scores')"))
        #expect(shell.executeLua("r:set({a = 1})"))
        #expect(shell.executeLua("snap = r:get()"))
        let database = shell.luaCompletions(for: "db:r").candidates
        #expect(database == ["db:ref("])
        let reference = shell.luaCompletions(for: "r:s").candidates
        #expect(reference.contains("r:set(") && reference.contains("r:setPriority(") && reference.contains("r:setWithPriority("))
        #expect(shell.luaCompletions(for: "r:orderByC").candidates == ["r:orderByChild("])
        let snapshot = shell.luaCompletions(for: "print(snap:v").candidates
        #expect(snapshot == ["snap:val("])
        #expect(shell.luaCompletions(for: "snap:").candidates.contains("snap:exists("))
        // fields after a dot, as values
        #expect(shell.luaCompletions(for: "r.ke").candidates == ["r.key"])
    }

    /// Issue 37, item 16: `db:ref('a'):o<Tab>` completed nothing. A chain of calls completes by
    /// the type each method gives (the metatables' `__returns`), calling nothing.
    @Test func completesChainsOfCalls() throws {
        let (shell, _) = try makeTestShell()
        defer { shell.close() }
        func complete(_ line: String) -> [String] { shell.luaCompletions(for: line).candidates }
        #expect(complete("db:ref('a'):orderByK") == [":orderByKey("])
        #expect(complete("x = db:ref('a'):child('b'):ro") == [":root("])
        #expect(complete("db:ref('a'):orderByChild('x'):limitToF") == [":limitToFirst("])
        #expect(complete("db:ref('a'):get():v") == [":val("])
        #expect(complete("db:ref('a'):get().re") == [".ref"])
        #expect(complete("db:ref(\"it's (here)\"):keepS") == [":keepSynced("])
        let concatenated = complete("db:ref('a' .. name):o")
        #expect(concatenated.contains(":on(") && concatenated.contains(":onDisconnect(") && concatenated.contains(":orderByValue("))
        #expect(complete("db:ref('a'):push():pa") == [":parent("])
        // a function that is not an Ember method says nothing of what it gives
        #expect(complete("ember.client('x'):r") == [])
        #expect(complete("(db):r") == [])
        #expect(complete("db:ref('a':o") == [])
        #expect(shell.executeLua("return 1"), "nothing was run or broken")
    }
}

import EmberCore
import Testing

@testable import EmberQL

@Suite struct CompletionContextTests {
    private static let modifiers = ["orderBy", "limitToFirst", "limitToLast", "startAt", "startAfter", "endAt", "endBefore", "equalTo"]
    /// What `get` and `ls` offer: the modifiers and `timeout`.
    private static let readModifiers = modifiers + ["timeout"]
    private static let events = ["value", "child_added", "child_changed", "child_removed", "child_moved"]

    private func context(_ prefix: String) -> CompletionContext { CommandParser.completionContext(for: prefix) }

    @Test func theFirstWordIsACommand() {
        #expect(context("") == .command(partial: ""))
        #expect(context("se") == .command(partial: "se"))
        #expect(context("  # comment\nse") == .command(partial: "se"))
        #expect(context("help ") == .command(partial: ""))
        #expect(context("help se") == .command(partial: "se"))
    }

    @Test func pathPositions() {
        #expect(context("get ") == .path(partial: ""))
        #expect(context("get /us") == .path(partial: "/us"))
        #expect(context("GET ../b") == .path(partial: "../b"))
        #expect(context("set ") == .path(partial: ""))
        #expect(context("rm ") == .path(partial: ""))
        #expect(context("remove -y /a") == .path(partial: "/a"))
        #expect(context("cd ..") == .path(partial: ".."))
        #expect(context("tree ") == .path(partial: ""))
        #expect(context("keepsynced /c") == .path(partial: "/c"))
        #expect(context("transaction ") == .path(partial: ""))
        #expect(context("import ") == .path(partial: ""))
        #expect(context("export ") == .path(partial: ""))
        #expect(context("ondisconnect ") == .path(partial: ""))
        #expect(context("get \"my ke") == .path(partial: "ke"))
        #expect(context("get \"us") == .path(partial: "\"us"))
    }

    @Test func queryKeywords() {
        #expect(context("get /users ") == .keyword(partial: "", candidates: Self.readModifiers))
        #expect(context("ls /users lim") == .keyword(partial: "lim", candidates: Self.readModifiers))
        #expect(context("get /a\n  orderBy key ") == .keyword(partial: "", candidates: Self.readModifiers))
        #expect(context("get /a orderBy ") == .keyword(partial: "", candidates: ["key", "value", "priority", "child"]))
        #expect(context("get /a ORDERBY va") == .keyword(partial: "va", candidates: ["key", "value", "priority", "child"]))
        #expect(context("get /a orderBy child ") == .childPath(partial: "", location: "/a"))
        #expect(context("get /a orderBy child sc") == .childPath(partial: "sc", location: "/a"))
        #expect(context("watch orderBy child ") == .childPath(partial: "", location: ""))
        #expect(context("get /a startAt 5 ") == .keyword(partial: "", candidates: Self.readModifiers))
        #expect(context("get /a limitToFirst 3 ") == .keyword(partial: "", candidates: Self.readModifiers))
        #expect(context("watch /a ") == .keyword(partial: "", candidates: Self.modifiers + Self.events))
        #expect(context("watch /a child_added child_") == .keyword(partial: "child_", candidates: Self.modifiers + Self.events))
    }

    @Test func timeoutIsOfferedToGetAndLsOnly() {
        #expect(context("get /a ti") == .keyword(partial: "ti", candidates: Self.readModifiers))
        #expect(context("get /a timeout ") == .none)
        #expect(context("get /a timeout 100 ") == .keyword(partial: "", candidates: Self.readModifiers))
        #expect(context("watch /a ti") == .keyword(partial: "ti", candidates: Self.modifiers + Self.events))
    }

    @Test func fixedWords() {
        #expect(context("tree /a ") == .keyword(partial: "", candidates: ["depth"]))
        #expect(context("keepsynced /a ") == .keyword(partial: "", candidates: ["on", "off"]))
        #expect(context("keepsynced /a o") == .keyword(partial: "o", candidates: ["on", "off"]))
        #expect(context("timing ") == .keyword(partial: "", candidates: ["on", "off"]))
        #expect(context("output ") == .keyword(partial: "", candidates: ["pretty", "json", "table"]))
        #expect(context("ondisconnect /p ") == .keyword(partial: "", candidates: ["set", "update", "remove", "cancel"]))
        #expect(context("unwatch ") == .keyword(partial: "", candidates: ["all"]))
        #expect(context("server ") == .keyword(partial: "", candidates: ["clock", "latency", "timeout"]))
        #expect(context("server clock ") == .keyword(partial: "", candidates: ["skew"]))
        #expect(context("set /a 5 ") == .keyword(partial: "", candidates: ["priority"]))
        #expect(context("ondisconnect /p set {a: 1} pr") == .keyword(partial: "pr", candidates: ["priority"]))
    }

    @Test func clientsAndNestedCommands() {
        #expect(context("client ") == .client(partial: ""))
        #expect(context("client al") == .client(partial: "al"))
        #expect(context("as ") == .client(partial: ""))
        #expect(context("as bob ") == .command(partial: ""))
        #expect(context("as bob se") == .command(partial: "se"))
        #expect(context("as bob get ") == .path(partial: ""))
        #expect(context("as bob keepsynced /a ") == .keyword(partial: "", candidates: ["on", "off"]))
    }

    @Test func files() {
        #expect(context("run ") == .file(partial: ""))
        #expect(context("run scr") == .file(partial: "scr"))
        #expect(context("import /a ") == .file(partial: ""))
        #expect(context("export /a da") == .file(partial: "da"))
    }

    @Test func nothingToComplete() {
        #expect(context("set /a ") == .none)
        #expect(context("set /a {na") == .none)
        #expect(context("set /a {\n  name: 'x',\n  ag") == .none)
        #expect(context("set /a 5") == .none)
        #expect(context("increment /a ") == .none)
        #expect(context("get /a limitToFirst ") == .none)
        #expect(context("get /a startAt ") == .none)
        #expect(context("server clock skew ") == .none)
        #expect(context("lua pri") == .none)
        #expect(context("lua ") == .none)
        #expect(context("transaction /a fu") == .none)
        #expect(context("get /a # comm") == .none)
        #expect(context("get /a # comment ") == .none)
        #expect(context("pwd ") == .none)
        #expect(context("greet al") == .none)
        #expect(context("run a.lua ") == .none)
        #expect(context("get /a startAt {a") == .none)
        #expect(context("set /a 'unterminated ") == .none)
    }
}

import Foundation
import Testing

/// The official Firebase Web SDK against a real `ember serve` process, through
/// `connectDatabaseEmulator`, as a Firebase app uses it (`Scenarios/websdk.mjs`).
@Suite(.serialized)
struct WebSDKTests {
    @Test("values and child events reach another app in Firebase's order")
    func events() throws {
        let server = try ServeProcess()
        try NodeScenario.expectPass("events", on: server)
    }

    @Test("set, multi-path update, push, priorities and remove, read back by another app")
    func writes() throws {
        let server = try ServeProcess()
        try NodeScenario.expectPass("writes", on: server)
    }

    @Test("every query: orders, ranges, limits, and a live window that moves")
    func queries() throws {
        let server = try ServeProcess()
        try NodeScenario.expectPass("queries", on: server)
    }

    @Test("transactions from four apps on one counter lose no update")
    func contention() throws {
        let server = try ServeProcess()
        try NodeScenario.expectPass("contention", on: server)
    }

    @Test("serverTimestamp and increment are resolved by the server")
    func serverValues() throws {
        let server = try ServeProcess()
        try NodeScenario.expectPass("serverValues", on: server)
    }

    @Test("onDisconnect set, update, remove and cancel fire when the app goes offline")
    func onDisconnect() throws {
        let server = try ServeProcess()
        try NodeScenario.expectPass("onDisconnect", on: server)
    }

    @Test(".info/connected, .info/serverTimeOffset, and writes queued offline land on goOnline")
    func offline() throws {
        let server = try ServeProcess()
        try NodeScenario.expectPass("offline", on: server)
    }

    @Test("a client process killed with SIGKILL: its onDisconnect is seen by another app")
    func presenceAfterSIGKILL() throws {
        let server = try ServeProcess()
        let (victim, output) = try NodeScenario.start("websdk.mjs", [String(server.port), "presence", "presence", "victim"])
        let text = LockedText()
        output.fileHandleForReading.readabilityHandler = { handle in text.append(handle.availableData) }
        let deadline = Date().addingTimeInterval(30)
        while !text.value.contains("ready"), victim.isRunning, Date() < deadline { usleep(20_000) }
        try #require(text.value.contains("ready"), "the app did not register its onDisconnect: \(text.value)")
        kill(victim.processIdentifier, SIGKILL)
        victim.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        try NodeScenario.expectPass("presenceWatch", on: server, namespace: "presence", arguments: ["victim"])
    }

    @Test("auth with rules: users write only their own data; denied writes revert; denied listens are cancelled")
    func rules() throws {
        let rules = FileManager.default.temporaryDirectory.appendingPathComponent("ember-rules-\(getpid())-\(UUID().uuidString).json")
        try """
            {
              // users read everyone's profile when signed in, and write only their own
              "rules": {
                "users": {
                  ".read": "auth != null",
                  "$uid": { ".write": "$uid === auth.uid" }
                }
              }
            }
            """.write(to: rules, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: rules) }
        let server = try ServeProcess(["--rules", rules.path])
        try NodeScenario.expectPass("rules", on: server)
    }
}

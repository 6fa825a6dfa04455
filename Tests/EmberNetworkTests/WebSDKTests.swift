import EmberTestSupport
import Foundation
import Testing

/// The official Firebase Web SDK against a real `ember serve` process, through
/// `connectDatabaseEmulator`, as a Firebase app uses it (`Scenarios/websdk.mjs`).
@Suite(.serialized)
struct WebSDKTests {
    /// The scenarios that need nothing but a server without rules, each on a server of its own.
    static let scenarios: [Scenario] = [
        Scenario("events", "values and child events reach another app in Firebase's order"),
        Scenario("writes", "set, multi-path update, push, priorities and remove, read back by another app"),
        Scenario("queries", "every query: orders, ranges, limits, and a live window that moves"),
        Scenario("contention", "transactions from four apps on one counter lose no update"),
        Scenario("unpairedSurrogate", "a query bound no key can hold is refused by its request; the connection stays"),
        Scenario("queryOracle", "every query the server answers, at once and live, is what the SDK computes from the whole location"),
        Scenario("transactionValues", "transactions on every kind of value, numbers next to a power of two included, commit at once"),
        Scenario("serverValues", "serverTimestamp and increment are resolved by the server"),
        Scenario("onDisconnect", "onDisconnect set, update, remove and cancel fire when the app goes offline"),
        Scenario("offline", ".info/connected, .info/serverTimeOffset, and writes queued offline land on goOnline"),
    ]

    @Test("a Web SDK scenario against ember serve", arguments: scenarios)
    func scenario(_ scenario: Scenario) throws {
        try NodeScenario.expectPass(scenario.name, on: try ServeProcess())
    }

    @Test("a client process killed with SIGKILL: its onDisconnect is seen by another app")
    func presenceAfterSIGKILL() throws {
        let server = try ServeProcess()
        let victim = try NodeScenario.start("websdk.mjs", [String(server.port), "presence", "presence", "victim"])
        victim.waitForOutput(containing: "ready", timeout: 30)
        try #require(victim.output.contains("ready"), "the app did not register its onDisconnect: \(victim.output)")
        victim.send(SIGKILL)
        victim.finish()
        try NodeScenario.expectPass("presenceWatch", on: server, namespace: "presence", arguments: ["victim"])
    }

    /// 300 seeded random queries (every order and bound, limits, priorities, integer-like and
    /// odd keys), written by the SDK as Ember Lua beside the keys the SDK itself finds: Ember's
    /// server (`get`) and Ember's client offline (from a location it holds whole) must find the
    /// same keys in the same order.
    @Test("Ember's server and Ember's own client answer every query as the Web SDK does")
    func queriesAgainstTheSDK() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-queries-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try NodeScenario.expectPass("queryScript", on: try ServeProcess(), arguments: [directory.path])
        let expected = try String(contentsOf: directory.appendingPathComponent("queries-expected.txt"), encoding: .utf8)
        #expect(expected.split(separator: "\n", omittingEmptySubsequences: false).count == 301)
        for side in ["server", "client"] {
            let script = directory.appendingPathComponent("queries-\(side).lua").path
            let result = ChildProcess.run([ServeProcess.executable.path, "--memory", "--no-rc", script], mergingErrors: true, timeout: 120)
            #expect(result.status == 0, "\(side): \(result.output.suffix(2000))")
            let got = result.output.split(separator: "\n", omittingEmptySubsequences: false)
            let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(got, want).enumerated().first { $0.element.0 != $0.element.1 }
            #expect(got.count == want.count && first == nil, "\(side): query \((first?.offset ?? 0) + 1) gives \(first.map { String($0.element.0) } ?? "?"), the SDK \(first.map { String($0.element.1) } ?? "?")")
        }
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
        // With rules in force only the administrator, or --ns, creates a namespace.
        let server = try ServeProcess(["--rules", rules.path, "--ns", "rules"])
        try NodeScenario.expectPass("rules", on: server)
    }
}

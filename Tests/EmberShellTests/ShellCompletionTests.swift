import EmberClient
import EmberCore
@testable import EmberShell
import Testing

/// Path completion goes through the client: its cache, else a `get` from the server, never the
/// embedded server's tree behind the client's back.
@Suite("Shell completion")
struct ShellCompletionTests {
    @Test("children the client does not hold are read from the server through the client")
    func readsThroughTheClient() throws {
        let (shell, output) = try makeTestShell()
        #expect(shell.execute(#"as other set /users {"ada": 1, "bob": {"x": 1}}"#), "\(output.text)")
        #expect(shell.database.cachedValue(at: "users") == nil, "main holds nothing there")
        #expect(shell.completions(for: "get /users/").candidates == ["/users/ada", "/users/bob/"])
        #expect(shell.completions(for: "get /users/b").candidates == ["/users/bob/"])
        #expect(shell.completions(for: "get /u").candidates == ["/users/"])
    }

    /// Issue 37, item 20: `ls /dinos orderBy child <Tab>` offered root paths.
    @Test("orderBy child completes the keys the children hold, below the query's location")
    func orderByChildCompletesTheChildrensKeys() throws {
        let (shell, output) = try makeTestShell()
        #expect(shell.execute(#"set /dinos {rex: {height: 5, length: 12, size: {w: 1}}, stego: {height: 4, weight: 2}}"#), "\(output.text)")
        #expect(shell.execute("set /other 1"), "\(output.text)")
        #expect(shell.completions(for: "ls /dinos orderBy child ").candidates == ["height", "length", "size/", "weight"])
        #expect(shell.completions(for: "ls /dinos orderBy child he").candidates == ["height"])
        #expect(shell.completions(for: "get /dinos orderBy child size/").candidates == ["size/w"])
        #expect(shell.execute("cd /dinos"), "\(output.text)")
        #expect(shell.completions(for: "watch orderBy child w").candidates == ["weight"])
    }

    @Test("offline, only what the client holds completes: its pending writes, not the server's data")
    func offlineUsesTheCache() throws {
        let (shell, output) = try makeTestShell()
        #expect(shell.execute(#"as other set /users {"ada": 1}"#), "\(output.text)")
        #expect(shell.execute("offline"))
        #expect(shell.completions(for: "get /users/").candidates.isEmpty)
        #expect(shell.execute(#"set /users {"cy": 3}"#))
        #expect(shell.completions(for: "get /users/").candidates == ["/users/cy"])
        #expect(shell.completions(for: "get /users/c").appendsSpace)
    }
}

import EmberCore
@testable import EmberLua
@testable import EmberShell
import EmberTestSupport
import Foundation
import Testing

/// The Lua reference (issue 39, item 6): every example runs and prints what it says, every
/// binding the runtime installs is documented and every documented binding is installed, and
/// docs/LUA.md is the reference written out.
@Suite struct LuaReferenceTests {
    static let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/LUA.md")

    static var signatures: [String] { LuaReference.entries.map(\.signature) }

    @Test(arguments: signatures)
    func theExampleRunsAndPrintsWhatItSays(_ signature: String) throws {
        let entry = try #require(LuaReference.entries.first { $0.signature == signature })
        let (shell, output) = try makeTestShell()
        defer { shell.close() }
        let succeeded = shell.executeLua(entry.example, asStatement: true)
        let printed = output.take()
        #expect(succeeded, "\(signature): \(printed)")
        #expect(printed == entry.output + "\n", "\(signature) prints:\n\(printed)")
    }

    @Test func everyBindingIsDocumentedAndEveryEntryInstalled() throws {
        let (shell, output) = try makeTestShell()
        defer { shell.close() }
        #expect(shell.executeLua("return 1"))
        _ = output.take()
        let runtime = try #require(shell.luaRuntime)
        func names(_ definition: LuaTypeDefinition) -> Set<String> {
            Set(definition.methods.map(\.name) + definition.fields.map(\.name))
        }
        // What scripts reach, by the object the reference names it on. The prelude replaces a
        // snapshot's childList by children and forEach; the query modifiers are documented on ref.
        var installed: [String: Set<String>] = [
            "db": names(runtime.databaseDefinition()),
            "ref": names(runtime.referenceDefinition()),
            "query": Set(runtime.queryDefinition().fields.map(\.name)),
            "snap": names(runtime.snapshotDefinition()).subtracting(["childList"]).union(["children", "forEach"]),
            "handle": names(runtime.writeHandleDefinition()),
            "listener": names(runtime.listenerDefinition()),
            "onDisconnect": names(runtime.onDisconnectDefinition()),
        ]
        // The ember table and its tables, as scripts see them.
        for table in ["ember", "ember.ServerValue", "ember.json"] {
            #expect(shell.executeLua("local t = {}; for k, v in pairs(\(table)) do if type(v) ~= 'table' or k == 'null' then t[#t + 1] = k end end; table.sort(t); __names = table.concat(t, ' ')"))
            #expect(shell.executeLua("print(__names)"))
            installed[table] = Set(output.take().trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init))
        }
        #expect(installed["ember"]?.contains("exec") == true)
        var documented: [String: Set<String>] = [:]
        for entry in LuaReference.entries { documented[entry.object, default: []].insert(entry.name) }
        for object in Set(installed.keys).union(documented.keys) {
            let missing = (installed[object] ?? []).subtracting(documented[object] ?? [])
            let extra = (documented[object] ?? []).subtracting(installed[object] ?? [])
            #expect(missing.isEmpty, "\(object): not in the reference: \(missing.sorted())")
            #expect(extra.isEmpty, "\(object): in the reference, not installed: \(extra.sorted())")
        }
        installed.removeAll()
    }

    @Test func docsLuaMdIsTheReferenceWrittenOut() throws {
        let expected = LuaReference.markdown
        if ProcessInfo.processInfo.environment["EMBER_RECORD_DOCS"] == "1" {
            try expected.write(to: Self.docs, atomically: true, encoding: .utf8)
        }
        let actual = try String(contentsOf: Self.docs, encoding: .utf8)
        #expect(actual == expected, "docs/LUA.md is not LuaReference.markdown: run EMBER_RECORD_DOCS=1 swift test --filter LuaReferenceTests")
    }
}

import EmberCore
import EmberTestSupport
import Testing

/// The export reader delivers a document piece by piece, and the pieces make exactly the tree
/// that parsing it whole makes (`Node(jsonText:)`), whatever the size below which values are
/// parsed whole.
@Suite("Export reader")
struct ExportReaderTests {
    /// A document in memory, read by offset.
    final class Text: ExportReader.Source {
        let bytes: [UInt8]
        init(_ text: String) { bytes = Array(text.utf8) }
        init(bytes: [UInt8]) { self.bytes = bytes }
        var byteCount: Int { bytes.count }
        func bytes(at offset: Int, count: Int) throws(DatabaseError) -> [UInt8] {
            Array(bytes[min(offset, bytes.count)..<min(offset + count, bytes.count)])
        }
    }

    /// The tree the pieces of `text` make at `path`, read with values of at most
    /// `subtreeBytes` parsed whole, and the pieces' kinds.
    static func assemble(_ text: String, at path: Path = .root, subtreeBytes: Int) throws -> (Node, [String]) {
        var reader = ExportReader(Text(text), subtreeBytes: subtreeBytes)
        var root = Node.empty
        var kinds: [String] = []
        try reader.read(at: path) { piece, _ in
            switch piece {
            case .clear(let location):
                kinds.append("clear \(location)")
                root.set(.empty, at: location)
            case .subtree(let location, let node):
                kinds.append("subtree \(location)")
                root.set(node, at: location)
            case .priority(let location, let priority):
                kinds.append("priority \(location)")
                root.set(root.child(at: location).withPriority(priority), at: location)
            }
        }
        return (root.child(at: path), kinds)
    }

    @Test("random trees in the export format read back as parsed whole, at every subtree size", arguments: [1, 16, 200, 1 << 20])
    func randomTrees(subtreeBytes: Int) throws {
        var random = SeededRandom(seed: 38)
        for _ in 0..<150 {
            let node = RandomTree.node(&random, depth: 4)
            let text = node.jsonString(.export)
            let whole = try Node(jsonText: text)
            let (assembled, _) = try Self.assemble(text, subtreeBytes: subtreeBytes)
            #expect(assembled == whole, "\(text)")
        }
    }

    @Test("a small value is one piece; a large object is read key by key, its priority after its children")
    func pieces() throws {
        let text = #"{"a":"z",".priority":7,"b":{"x":1,"y":[1,2]}}"#
        let (node, kinds) = try Self.assemble(text, subtreeBytes: 12)
        #expect(node == (try Node(jsonText: text)))
        #expect(kinds == ["subtree /a", "subtree /b/x", "subtree /b/y", "priority /"])
        #expect(try Self.assemble(text, subtreeBytes: 1000).1 == ["subtree /"])
    }

    @Test("a repeated name replaces the first, as JSON.parse does; names out of order clear each child first")
    func repeatedNames() throws {
        let text = #"{"b":1,"a":{"x":1,"y":2},"c":3,"a":{"z":3},"d":null,"c":null}"#
        let (node, kinds) = try Self.assemble(text, subtreeBytes: 1)
        #expect(node == (try Node(jsonText: text)))
        #expect(node == (try Node(jsonText: #"{"b":1,"a":{"z":3}}"#)))
        #expect(kinds.first == "subtree /b" && kinds.contains("clear /a") && kinds.contains("clear /c"))
    }

    @Test("an object whose children are all null or empty has no priority, and is empty")
    func emptyObjects() throws {
        for text in [#"{".priority":1,"a":null,"b":{}}"#, #"{"a":{"b":null},".priority":"p"}"#, "{}", "[]", "[null]"] {
            let (node, _) = try Self.assemble(text, subtreeBytes: 1)
            #expect(node == .empty, "\(text)")
        }
    }

    @Test("arrays on the spine are objects keyed by index; values of every kind keep their meaning")
    func arraysAndScalars() throws {
        for text in [#"[1,null,{"a":[2.0,-0.0,1e2]},"s\u00e9"]"#, "5", #""text""#, "true", "-1.5e-3", #"{"a":{".value":1,".priority":2}}"#] {
            let (node, _) = try Self.assemble(text, subtreeBytes: 1)
            #expect(node == (try Node(jsonText: text)), "\(text)")
        }
    }

    @Test("at a path: depths and errors count from it")
    func atAPath() throws {
        let deep = String(repeating: #"{"a":"#, count: 30) + "1" + String(repeating: "}", count: 30)
        #expect(try Self.assemble(deep, at: "x", subtreeBytes: 1).0 == (try Node(jsonText: deep, at: "x")))
        let error = try #require(throws: DatabaseError.self) { try Self.assemble(deep, at: "x/y", subtreeBytes: 1) }
        #expect(error.code == ErrorCode.pathTooDeep || error.code == ErrorCode.invalidValue)
    }

    @Test("bad documents are refused with the byte or the location", arguments: [
        (#"{"a":1,}"#, "not JSON at byte"), (#"{"a" 1}"#, "not JSON at byte"), (#"{"a":{"b":1}"#, "not JSON at byte"),
        (#"{} x"#, "not JSON at byte"), (#"{"a.b":1}"#, "a.b"), (#"{"a":{"b.c":1}}"#, "b.c"), (#"{"a":NaN}"#, "/a"), ("", "not JSON at byte"),
    ])
    func badDocuments(text: String, mentions: String) throws {
        let error = try #require(throws: DatabaseError.self) { try Self.assemble(text, subtreeBytes: 1) }
        #expect(error.description.contains(mentions), "\(error)")
    }

    @Test("text that is not UTF-8 is refused")
    func notUTF8() throws {
        var reader = ExportReader(Text(bytes: Array(#"{"a":"x"#.utf8) + [0xFF] + Array(#""}"#.utf8)), subtreeBytes: 1)
        #expect(throws: DatabaseError.self) { try reader.read(at: .root) { _, _ in } }
    }

    @Test("server values are left to a whole import; .value beside children is refused as a write refuses it")
    func unsupported() throws {
        for text in [#"{"a":1,".value":2}"#, #"{".value":2,"a":1}"#] {
            let error = try #require(throws: DatabaseError.self) { try Self.assemble(text, subtreeBytes: 1) }
            #expect(error.message.contains(".value"))
        }
        for text in [#"{".value":{".sv":"timestamp"}}"#, #"{".sv":"timestamp"}"#, #"{".priority":{".sv":"timestamp"},"a":1}"#, #"{"a":{".sv":"timestamp"}}"#] {
            #expect(throws: ExportReader.Unsupported.self, "\(text)") { try Self.assemble(text, subtreeBytes: 1) }
        }
    }
}

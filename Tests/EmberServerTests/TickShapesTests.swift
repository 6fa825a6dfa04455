import EmberCore
import EmberStorage
import Testing

@testable import EmberServer

@Suite("TickShapes")
struct TickShapesTests {
    private func node(_ json: String) -> Node { try! Node(jsonText: json) }

    @Test("a tick of many writes keeps the shape each location had before the tick's first write at or below it, and its outermost paths written")
    func manyWrites() {
        var root = node(#"{"a":{"x":1,"y":{".value":2,".priority":5}},"b":"leaf","w":{"k1":1}}"#)
        var shapes = TickShapes()
        func write(_ value: Node, at path: Path) {
            shapes.willWrite(at: path, in: root, wholeFrom: 0)
            root.set(value, at: path)
        }
        // Eight writers' paths under shared ancestors, then writes below and above some of them.
        for writer in 0..<8 { write(node("\(writer)"), at: Path(keys: [ChildKey("w"), ChildKey(unchecked: "k\(writer)")])) }
        write(node("3"), at: "a/x")
        write(node(#"{"z":1}"#), at: "b")
        write(node("4"), at: "b/z")
        write(node("7"), at: "a/y")
        write(.empty, at: "a")
        #expect(shapes.shape(at: .root) == CommittedShape(node(#"{"a":{"x":1},"b":"leaf","w":{"k1":1}}"#)))
        #expect(shapes.shape(at: "w") == CommittedShape(node(#"{"k1":1}"#)))
        #expect(shapes.shape(at: "w/k1") == CommittedShape(node("1")))
        #expect(shapes.shape(at: "w/k0") == CommittedShape(.empty))
        #expect(shapes.shape(at: "a") == CommittedShape(node(#"{"x":1}"#)))
        #expect(shapes.shape(at: "a/y") == CommittedShape(node(#"{".value":2,".priority":5}"#)))
        #expect(shapes.shape(at: "b") == CommittedShape(node(#""leaf""#)))
        // Below a location written this tick, nothing is recorded.
        #expect(shapes.shape(at: "b/z") == nil)
        #expect(shapes.shape(at: "nowhere") == nil)
        let written = Set(shapes.written.map(\.description))
        #expect(written == Set((0..<8).map { "/w/k\($0)" } + ["/a", "/b"]))
    }
}

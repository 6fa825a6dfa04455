@testable import EmberClient
import EmberCore
import EmberWire
import Testing

@Suite("OnDisconnectQueue")
struct OnDisconnectQueueTests {
    private func request(_ path: Path, _ operation: OnDisconnectRequest.Operation) -> OnDisconnectRequest {
        OnDisconnectRequest(path: path, operation: operation, completion: { _ in })
    }

    private func describe(_ registered: [(path: Path, operation: OnDisconnectRequest.Operation)]) -> [String] {
        registered.map { path, operation in
            switch operation {
            case .put(let node): "put \(path) \(node.jsonString())"
            case .merge(let changes): "merge \(path) " + changes.map { "\($0.path)=\($0.node.jsonString())" }.joined(separator: ",")
            case .cancel: "cancel \(path)"
            }
        }
    }

    @Test("queued requests are handed over once, oldest first")
    func queued() {
        var queue = OnDisconnectQueue()
        queue.queue(request("a", .put(Node(.int(1)))))
        queue.queue(request("b", .cancel))
        #expect(queue.takeQueued().map(\.path) == ["a", "b"])
        #expect(queue.takeQueued().isEmpty)
    }

    @Test("a cancellation forgets what is at and below its path, keeps the rest of an object above it")
    func cancellation() throws {
        var queue = OnDisconnectQueue()
        queue.accepted(request("a", .put(try Node(json: ["x": 1, "y": 2]))))
        queue.accepted(request("a/y/z", .put(Node(.int(3)))))
        queue.accepted(request("b", .merge([WireChange("c", Node(.int(4)))])))
        queue.accepted(request("a/y", .cancel))
        #expect(describe(queue.takeRegistered()) == ["merge /a /x=1", "merge /b /c=4"])
        #expect(queue.takeRegistered().isEmpty)
    }
}

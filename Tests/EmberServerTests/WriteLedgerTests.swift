import EmberEngine
import EmberCore
import EmberInstance
@testable import EmberServer
import EmberStorage
import EmberTestSupport
import EmberWire
import Foundation
import Testing

/// The server's record of answered writes: exact for any number of writes in between, durable
/// with the data, and bounded by what clients can still send again.
@Suite("Write ledger")
struct WriteLedgerTests {
    let clock = ManualClock(1_700_000_000_000)

    @Test("writes answered up to a writer's watermark get their first answer after a restart and any number of other writes")
    func watermarksAreExact() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ember-ledger-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        let increment = json(#"{".sv":{"increment":1}}"#)
        do {
            let network = InProcessNetwork(clock: clock)
            let server = try Server(clock: clock, store: try ServerStore(at: .file(file), durability: .normal))
            let alice = RawClient(network, server: server)
            alice.send { .resume(requestID: $0, client: "alice", writers: ["alice.one": 1]) }
            alice.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "alice.one#1") }
            alice.send { .put(requestID: $0, path: ".bad", data: json("1"), hash: nil, writeKey: "alice.one#2") }
            alice.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "alice.one#3") }
            let bob = RawClient(network, server: server)
            for sequence in 1...70_000 {
                bob.send { .put(requestID: $0, path: "bob", data: Node(.int(Int64(sequence))), hash: nil, writeKey: "bob.x#\(sequence)") }
                if sequence % 5_000 == 0 {
                    network.engine.runDue()
                    server.endTick()
                }
            }
            network.engine.runDue()
            server.endTick()
            try server.close()
        }
        let network = InProcessNetwork(clock: clock)
        let store = try ServerStore(at: .file(file), durability: .normal)
        let server = try Server(clock: clock, store: store)
        let alice = RawClient(network, server: server)
        alice.send { .resume(requestID: $0, client: "alice", writers: ["alice.one": 1, "alice.two": 1]) }
        alice.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "alice.one#1") }
        alice.send { .put(requestID: $0, path: ".bad", data: json("1"), hash: nil, writeKey: "alice.one#2") }
        alice.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "alice.one#3") }
        alice.send { .put(requestID: $0, path: "count", data: increment, hash: nil, writeKey: "alice.two#1") }
        network.engine.runDue()
        server.endTick()
        network.engine.runDue()
        #expect(alice.take() == ["handshake 1700000000000", "ack 1 ok", "ack 2 ok", "ack 3 invalid_value", "ack 4 ok", "ack 5 ok"])
        #expect(server.value(at: "count") == json("3"))
        #expect(server.value(at: "bob") == json("70000"))
        // What alice can still send is all that is kept of her: after a resume that names only
        // her new writer from 2 on, her first writer and its refusal are gone.
        alice.send { .resume(requestID: $0, client: "alice", writers: ["alice.two": 2]) }
        network.engine.runDue()
        server.endTick()
        let kept = try store.loadLedger().filter { $0.writer.hasPrefix("alice.") }
        #expect(kept == [StoredWriter(writer: "alice.two", watermark: 1, refusals: [:])])
        #expect(try store.loadLedger().count == 2, "alice.two and bob.x")
    }

    /// The errors of the acknowledgements `client` received, in order.
    private func ackErrors(_ client: RawClient) -> [DatabaseError] {
        client.received.compactMap { message in
            if case .ack(_, .failed(let error)) = message { return error }
            return nil
        }
    }

    @Test("a refused write sent again after a restart gets the refusal it got, word for word, by either kind of key")
    func refusalsReadBackWordForWord() throws {
        let directory = try TemporaryDirectory.make("ember-ledger").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/server.sqlite"
        func session(_ body: (RawClient, InProcessNetwork, Server) throws -> Void) throws {
            let network = InProcessNetwork(clock: clock)
            let server = try Server(clock: clock, store: try ServerStore(at: .file(file), durability: .normal))
            try body(RawClient(network, server: server), network, server)
            try server.close()
        }
        func sendBoth(_ client: RawClient, _ network: InProcessNetwork, _ server: Server) {
            client.send { .resume(requestID: $0, client: "alice", writers: ["alice.one": 1]) }
            // A keyed write of this version (the ledger's refusals) and of an earlier one (answers).
            client.send { .put(requestID: $0, path: "rooms/r1/.bad", data: json("1"), hash: nil, writeKey: "alice.one#1") }
            client.send { .put(requestID: $0, path: "rooms/r2/.bad", data: json("2"), hash: nil, writeKey: "s:w9") }
            network.engine.runDue()
            server.endTick()
            network.engine.runDue()
        }
        var first: [DatabaseError] = []
        try session { client, network, server in
            sendBoth(client, network, server)
            first = ackErrors(client)
        }
        #expect(first.count == 2)
        #expect(first.allSatisfy { $0.path != nil }, "each refusal names where it was refused")
        try session { client, network, server in
            sendBoth(client, network, server)
            let again = ackErrors(client)
            #expect(again.map(\.code) == first.map(\.code))
            #expect(again.map(\.message) == first.map(\.message))
            #expect(again.map(\.path) == first.map(\.path))
        }
    }
    @Test("the writer answered last is found by its name: the same answers as looking every writer up, across new writers, refusals, resumes and restores")
    func recentWriterAgainstModel() {
        for seed in UInt64(1)...4 {
            var random = SeededRandom(seed: seed)
            var ledger = WriteLedger()
            // The model: each writer's watermark and refusals.
            var watermarks: [String: Int64] = [:]
            var refusals: [String: [Int64: DatabaseError]] = [:]
            let names = ["c1.a", "c1.b", "c2.a", "c3.a", "c3.b", "c3.c"]
            func expected(_ key: WriteKey) -> AckStatus? {
                guard let mark = watermarks[key.writer], key.sequence <= mark else { return nil }
                return refusals[key.writer]?[key.sequence].map(AckStatus.failed) ?? .ok()
            }
            for step in 0..<3_000 {
                // Runs of one writer, as a client sends them.
                let name = names[Int.random(in: 0..<(step % 7 == 0 ? names.count : 2), using: &random)]
                let sequence = Int64.random(in: 1...(watermarks[name, default: 0] + 2), using: &random)
                let key = WriteKey(writer: name, sequence: sequence)
                #expect(ledger.answer(for: key) == expected(key), "seed \(seed) step \(step): \(key)")
                switch Int.random(in: 0..<20, using: &random) {
                case 0:
                    // A client comes back: it may resend its writers' writes from their floors.
                    let client = WriteLedger.client(of: name)
                    let kept = names.filter { WriteLedger.client(of: $0) == client && Bool.random(using: &random) }
                    let floors = Dictionary(uniqueKeysWithValues: kept.map { ($0, Int64.random(in: 1...(watermarks[$0, default: 0] + 1), using: &random)) })
                    _ = ledger.resume(client: client, floors: floors)
                    for writer in names where WriteLedger.client(of: writer) == client {
                        guard let floor = floors[writer] else {
                            watermarks[writer] = nil
                            refusals[writer] = nil
                            continue
                        }
                        refusals[writer] = refusals[writer]?.filter { $0.key >= floor }
                    }
                case 1:
                    // A restart puts back what the store kept.
                    var restored = WriteLedger()
                    restored.restore(ledger.writers.map { StoredWriter(writer: $0.key, watermark: $0.value.watermark, refusals: $0.value.refusals) })
                    ledger = restored
                default:
                    guard expected(key) == nil else { continue }
                    let status: AckStatus = Int.random(in: 0..<4, using: &random) == 0 ? .failed(.permissionDenied(at: Path.root)) : .ok()
                    // A server without a store records the same answers, with no changes made.
                    if step % 2 == 0 {
                        _ = ledger.record(status, for: key)
                    } else {
                        ledger.recordInMemory(status, for: key)
                    }
                    watermarks[name] = max(watermarks[name, default: 0], sequence)
                    if case .failed(let error) = status { refusals[name, default: [:]][sequence] = error }
                }
            }
        }
    }
}

import EmberCore
import EmberSync
import EmberTestSupport

/// The EmberSync workload of issue 3: one leaf changes under a location with n children,
/// watched by a `value` listener and a `limitToLast(10)` query at once.
struct SyncBenchmarks {
    let report: BenchReport

    /// A listen provider that only counts: the benchmark has no server.
    struct CountingListenProvider: ListenProvider {
        var started = 0
        var stopped = 0
        mutating func startListening(_ query: QuerySpec, tag: QueryTag?) { started += 1 }
        mutating func stopListening(_ query: QuerySpec, tag: QueryTag?) { stopped += 1 }
    }

    /// Loads n children, then times single-leaf changes: server updates anywhere, server
    /// updates inside the limited window, and the full cycle of a user write (optimistic set,
    /// the server's echo, the acknowledgement).
    func run(n: Int, operations: Int = 20_000) {
        let items: Path = "items"
        let keys = CoreBenchmarks.keys(.pushID, count: n)
        var tree = SyncTree(listenProvider: CountingListenProvider())
        _ = tree.addEventRegistration(EventRegistration(id: RegistrationID(1), types: [.value]), for: .default(at: items))
        let window = QuerySpec(path: items, params: try! QueryParams().limitedToLast(10))
        _ = tree.addEventRegistration(EventRegistration(id: RegistrationID(2)), for: window)
        var initial = Node.empty
        for (index, key) in keys.enumerated() { initial.setChild(key, Node(.int(Int64(index)))) }
        var events: [Event] = []
        let load = Stopwatch.measure { events = tree.applyServerOverwrite(initial, at: items) }
        precondition(events.count == 12, "expected 10 child_added and 2 value events, got \(events.count)")
        report.row("n = \(n): initial load of the location (once)", total: load, operations: 1)

        var random = SeededRandom(seed: 7)
        var valueEvents = 0
        let anywhere = Stopwatch.measure {
            for step in 0..<operations {
                let key = keys[Int(random.next() % UInt64(n))]
                let events = tree.applyServerOverwrite(Node(.int(Int64(n + step))), at: items.child(key))
                valueEvents += events.count { $0.type == .value }
            }
        }
        precondition(valueEvents >= operations, "every change raises the value listener's event")
        report.row("n = \(n): server changes one leaf anywhere", total: anywhere, operations: operations)

        let inWindow = Stopwatch.measure {
            for step in 0..<operations {
                let key = keys[n - 1 - step % 10]
                let events = tree.applyServerOverwrite(Node(.int(Int64(-step))), at: items.child(key))
                precondition(events.count == 3, "value, child_changed and value; got \(events.count)")
            }
        }
        report.row("n = \(n): server changes one leaf in the limitToLast(10) window", total: inWindow, operations: operations)

        let cycle = Stopwatch.measure {
            for step in 0..<operations {
                let key = keys[Int(random.next() % UInt64(n))]
                let path = items.child(key)
                let value = Node(.string("v\(step)"))
                let id = WriteID(step)
                _ = tree.applyUserOverwrite(value, at: path, writeID: id)
                _ = tree.applyServerOverwrite(value, at: path)
                _ = tree.ackUserWrite(id, outcome: .confirmed)
            }
        }
        report.row("n = \(n): user set, server echo and ack of one leaf", total: cycle, operations: operations)
    }
}

import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberRules
import EmberServer
import EmberSync
import EmberTestSupport

/// Issue 8's query workload: `orderByChild('score').limitToLast(10)` over a large list, asked
/// once and kept live while scores change, with and without the server's `.indexOn`.
///
/// The list is `scores/k<i> = {score: BenchData.score(i)}`, put on an in-memory server before
/// timing; the peers hold the same keys and scores.
struct QueryBenchmarks {
    let children: Int

    /// The in-memory instance with the list loaded; `indexed` declares `.indexOn: "score"`.
    private func loadedInstance(indexed: Bool) -> Ember {
        let rules = indexed ? try! Ruleset(text: #"{"rules": {".read": true, ".write": true, "scores": {".indexOn": "score"}}}"#) : .open
        let ember = Ember(clock: SystemClock(), random: SeededRandom(seed: 3), rules: rules)
        var list = Node.empty
        for index in 0..<children {
            list.setChild(
                ChildKey(unchecked: BenchData.key(index)),
                Node(children: [(ChildKey(unchecked: "score"), Node(.int(Int64(BenchData.score(index)))))]))
        }
        try! ember.server.put(list, at: "scores", hash: nil)
        return ember
    }

    private static func topTen(_ database: Database) -> Query {
        try! database.reference("scores").query.orderByChild("score").limitToLast(10)
    }

    /// Seconds per query: a client with no listener asks the server for the top ten with `get`
    /// (`queries` times a run, each answered before the next), and changes per second: a second
    /// client listens to the same query while a writer sets `changes` scores, each acknowledged
    /// before the next; timed until the listener has every change.
    func run(indexed: Bool, queries: Int, changes: Int, runs: Int) -> (topTen: Measurement, live: Measurement) {
        let ember = loadedInstance(indexed: indexed)
        let reader = try! ember.client(named: "reader")
        let writer = try! ember.client(named: "writer")
        let listener = try! ember.client(named: "listener")
        try! ember.flush()
        let expected = Self.expectedTopTen(children: children)

        // The query is built once and asked each time, as SQLite's statement is prepared once
        // and taken from GRDB's statement cache for each query (building it, the path checked
        // twice, costs 5,400 instructions a query: BENCHMARKS.md, issue 40's fourth session).
        let topTen = Self.topTen(reader)
        func ask(_ count: Int) -> Duration {
            Stopwatch.measure {
                for _ in 0..<count {
                    var answer: Result<DataSnapshot, DatabaseError>?
                    topTen.getData { answer = $0 }
                    try! ember.run { answer != nil }
                    precondition((try! answer!.get()).childrenCount == 10, "the query answers ten children")
                }
            }
        }
        let queryTimes = Repetitions.measure(size: queries, runs: runs, ask)
        var check: Result<DataSnapshot, DatabaseError>?
        Self.topTen(reader).getData { check = $0 }
        try! ember.run { check != nil }
        precondition((try! check!.get()).children.map { $0.key! } == expected, "the top ten by score")

        var window: [String] = []
        let handle = Self.topTen(listener).observe([.value]) { event in
            if case .data(.value, let snapshot, _) = event { window = snapshot.children.map { $0.key! } }
        }
        try! ember.run { !window.isEmpty }
        var changed = 0
        func change(_ count: Int) -> Duration {
            Stopwatch.measure {
                for _ in 0..<count {
                    let index = BenchData.changedIndex(changed, children)
                    var done = false
                    try! writer.reference("scores/\(BenchData.key(index))/score")
                        .setValue(.int(Int64(BenchData.changedScore(changed, children)))) { error in
                            precondition(error == nil, "the write is acknowledged")
                            done = true
                        }
                    changed += 1
                    try! ember.run { done }
                }
                try! ember.flush()
            }
        }
        let changeTimes = Repetitions.measure(size: changes, runs: runs, change)
        var final: Result<DataSnapshot, DatabaseError>?
        Self.topTen(reader).getData { final = $0 }
        try! ember.run { final != nil }
        precondition(window == (try! final!.get()).children.map { $0.key! }, "the live window matches the server's top ten")
        listener.removeObserver(handle)
        try! ember.close()
        return (
            .measured(.latency(operations: queries, durations: queryTimes)),
            .measured(.rate("changes/s", operations: changes, durations: changeTimes)))
    }

    /// The keys of the ten highest scores before any change, in ascending score order (ties by key).
    static func expectedTopTen(children: Int) -> [String] {
        (0..<children)
            .map { (score: BenchData.score($0), key: BenchData.key($0)) }
            .sorted { ($0.score, ChildKey(unchecked: $0.key)) < ($1.score, ChildKey(unchecked: $1.key)) }
            .suffix(10)
            .map(\.key)
    }
}

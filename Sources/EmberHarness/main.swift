import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberServer
import EmberStorage
import EmberSync
import EmberTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

// ember-harness: one phase of a multi-process test per run, so that the tests can restart the
// process for real, and kill it with SIGKILL. Each phase opens the database directory, does its
// part, and prints what it saw, one line per fact, unbuffered (a killed process leaves every
// line it printed). Not a user tool: `ember` is.
//
//   ember-harness dinosaurs-online DIR     scores, a limitToLast(4) listen online, then offline
//   ember-harness dinosaurs-offline DIR    restarted offline: limitToLast(2), (6), then online
//   ember-harness queue-offline DIR        alice queues writes offline and exits without closing
//   ember-harness queue-deliver DIR        restarted: bob listens, alice goes online
//   ember-harness crash-writer DIR MODE SEED   writes until killed: "queued N", "acked N"
//   ember-harness crash-recover DIR MODE   restarts, resends the queue, prints the tree
//   ember-harness torture [--trials N]     the torture run (Torture.swift): seeded SIGKILL trials

let arguments = Array(CommandLine.arguments.dropFirst())

/// Writes a line to standard output at once (no buffer for a kill to lose).
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ message: String) -> Never {
    let bytes = Array("ember-harness: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

guard arguments.count >= 2 || arguments.first == "torture" else { fail("usage: ember-harness PHASE DIR [MODE [SEED]]") }
let phase = arguments[0]
let directory = arguments.count > 1 ? arguments[1] : ""

let durability = arguments.count > 2 ? Durability(rawValue: arguments[2]) ?? .normal : .normal
/// The server's cache: `EMBER_CACHE_SIZE` bytes when set (a run with a cache smaller than the
/// data), else the default.
let serverCacheSize = ProcessInfo.processInfo.environment["EMBER_CACHE_SIZE"].flatMap { Int($0) } ?? Server.defaultCacheSize

func open(seed: UInt64, clock: any DatabaseClock = ManualClock(1_700_000_000_000)) -> Ember {
    do {
        return try Ember(
            persistence: .directory(directory, try PersistenceSettings(durability: durability, serverCacheSize: serverCacheSize)), clock: clock,
            random: SeededRandom(seed: seed))
    } catch {
        fail("cannot open \(directory): \(error)")
    }
}

func check(_ body: () throws -> Void) {
    do { try body() } catch { fail("\(error)") }
}

/// Prints each event as `label event key[ after previous]: value`.
func watch(_ query: Query, _ label: String) {
    _ = query.observe([.childAdded, .childChanged, .childRemoved, .childMoved, .value]) { event in
        switch event {
        case .data(.value, let snapshot, _):
            emit("\(label) value: \(snapshot.value.serialized())")
        case .data(let type, let snapshot, let previous):
            emit("\(label) \(type.rawValue) \(snapshot.key ?? "/")\(previous.map { " after \($0)" } ?? ""): \(snapshot.value.serialized())")
        case .cancelled(let error):
            emit("\(label) cancelled \(error.code)")
        }
    }
}

let scores =
    #"{"bruhathkayosaurus":55,"lambeosaurus":21,"linhenykus":80,"pterodactyl":93,"stegosaurus":5,"triceratops":22}"#

switch phase {
case "dinosaurs-online":
    let ember = open(seed: 1)
    check {
        try ember.server.put(try Node(jsonText: scores), at: "scores", hash: nil)
        let main = try ember.client(named: "main")
        watch(try main.reference("scores").query.orderByValue().limitToLast(4), "last4")
        try ember.flush()
        main.goOffline()
        try ember.flush()
        try ember.close()
    }
case "dinosaurs-offline":
    let ember = open(seed: 2)
    check {
        let main = try ember.client(named: "main", startOffline: true)
        watch(try main.reference("scores").query.orderByValue().limitToLast(2), "last2")
        try ember.flush()
        emit("--")
        watch(try main.reference("scores").query.orderByValue().limitToLast(6), "last6")
        try ember.flush()
        emit("-- online")
        main.goOnline()
        try ember.flush()
        try ember.close()
    }
case "queue-offline":
    let ember = open(seed: 3)
    check {
        let alice = try ember.client(named: "alice", startOffline: true)
        try alice.reference("chat/m1").setValue("hello")
        try alice.reference("chat/count").setNode(try Node(jsonText: #"{".sv":{"increment":1}}"#))
        try ember.flush()
        emit("pending \(alice.pendingWriteCount)")
    }
    // No close: the process ends as a crash would, after the tick's commit.
    exit(0)
case "queue-deliver":
    let ember = open(seed: 4)
    check {
        let alice = try ember.client(named: "alice", startOffline: true)
        emit("pending \(alice.pendingWriteCount)")
        emit("alice sees \(alice.cachedValue(at: "chat/m1")?.jsonString() ?? "nothing")")
        let bob = try ember.client(named: "bob")
        watch(try bob.reference("chat").query, "bob")
        try ember.flush()
        alice.goOnline()
        try ember.flush()
        emit("pending \(alice.pendingWriteCount)")
        emit("server \(ember.server.value(at: "chat").jsonString())")
        try ember.close()
    }
case "crash-writer":
    // Multi-path updates, each {log/i: true, pairs/i: {a: i, b: i}, total: +1}, with up to
    // `window` unanswered, until the process is killed.
    var random = SeededRandom(seed: UInt64(arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1))
    let window = Int(random.next() % 32) + 1
    let ember = open(seed: random.next(), clock: SystemClock())
    check {
        let writer = try ember.client(named: "writer")
        let root = writer.root
        var made = 0
        var answered = 0
        let increment = try Node(jsonText: #"{".sv":{"increment":1}}"#)
        emit("window \(window)")
        while true {
            let start = made
            while made - answered < window {
                let i = made
                let changes: [(Path, Node)] = [
                    (Path(keys: ["log", ChildKey(unchecked: "i\(i)")]), Node(.bool(true))),
                    (Path(keys: ["pairs", ChildKey(unchecked: "i\(i)")]), Node(children: [(ChildKey(unchecked: "a"), Node(.int(Int64(i)))), (ChildKey(unchecked: "b"), Node(.int(Int64(i))))])),
                    ("total", increment),
                ]
                try root.updateNodes(changes) { error in
                    answered += 1
                    if let error { emit("failed \(i) \(error.code)") } else { emit("acked \(i)") }
                }
                made += 1
            }
            // When the engine stops here, the tick has ended: the writes made so far are in
            // the client's store.
            try ember.run { made - answered < window }
            if made > start { emit("queued \(made - 1)") }
        }
    }
case "crash-recover":
    let ember = open(seed: 99, clock: SystemClock())
    check {
        let writer = try ember.client(named: "writer")
        emit("restored \(writer.pendingWriteCount)")
        try ember.run { writer.pendingWriteCount == 0 && writer.connectionState == .connected }
        try ember.flush()
        emit("tree \(ember.server.value(at: "").jsonString())")
        try ember.close()
    }
case "torture", "torture-writer", "torture-recover", "torture-intruder":
    Torture.run(phase, Array(arguments.dropFirst()))
default:
    fail("unknown phase \(phase)")
}

import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberServer
import EmberStorage
import EmberTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The torture run: many seeded trials, each a writer process killed with SIGKILL at a random
/// moment while it sets, updates, increments, imports and runs transactions, then a process
/// that restarts on the same directory, sends what was queued and prints the tree, which is
/// checked against what the writer was told. Some trials fill the disk (a store size limit)
/// part way; some start a second process on the directory while the writer runs.
///
/// Every write is recognizable in the tree by its number: `sets/i`, `ulog/i` (with `upairs/i`
/// and `utotal`, an increment, in the same update), `incs/i` (an increment of its own, so 2
/// means applied twice), `txs/ids/i` (with `txs/count`, in one transaction), `imports/i` (1,000
/// children, all or none). The summary counts what must be 0: acknowledged writes lost, writes
/// queued but never sent, writes applied twice, refusals applied later, partial updates or
/// imports, second processes let in, and recoveries that failed or hung.
///
///   ember-harness torture [--trials N] [--seed S]    the driver (prints one line per trial)
///   ember-harness torture-writer DIR MODE SEED FULL  writes until killed
///   ember-harness torture-recover DIR MODE           restarts, sends the queue, prints the tree
///   ember-harness torture-intruder DIR               tries to open a directory in use
enum Torture {
    /// What a write does.
    enum Kind: String, CaseIterable {
        case set, update, increment, transaction, `import`
    }

    /// What an update writes at `upairs/i`.
    static func pair(_ i: Int) -> Node {
        Node(children: [(ChildKey(unchecked: "a"), Node(.int(Int64(i)))), (ChildKey(unchecked: "b"), Node(.int(Int64(i))))])
    }

    /// Children in one import.
    static let importSize = 1000

    // MARK: Phases

    static func run(_ phase: String, _ arguments: [String]) {
        switch phase {
        case "torture": drive(arguments)
        case "torture-writer": writer(arguments)
        case "torture-recover": recover(arguments)
        case "torture-intruder": intruder(arguments)
        default: fail("unknown phase \(phase)")
        }
    }

    private static func open(_ directory: String, _ durability: Durability, seed: UInt64) throws -> Ember {
        try Ember(
            persistence: .directory(directory, try PersistenceSettings(durability: durability, serverCacheSize: serverCacheSize)), clock: SystemClock(),
            random: SeededRandom(seed: seed))
    }

    /// Writes until killed, printing `made I KIND`, `acked I`, `failed I CODE`, and `queued I`
    /// once every write up to I is in the client's store.
    private static func writer(_ arguments: [String]) {
        guard arguments.count >= 4, let mode = Durability(rawValue: arguments[1]), let seed = UInt64(arguments[2]) else {
            fail("usage: ember-harness torture-writer DIR MODE SEED FULL")
        }
        let directory = arguments[0]
        let fills = arguments[3] == "full"
        var random = SeededRandom(seed: seed)
        let window = Int(random.next() % 16) + 1
        let fillAfter = fills ? Int(random.next() % 150) + 10 : Int.max
        let increment = Node(.deferred(.increment(by: 1)))
        do {
            let ember = try open(directory, mode, seed: random.next())
            let writer = try ember.client(named: "writer")
            writer.onStoreError = { _ in }
            ember.server.onStoreError = { _ in }
            let root = writer.root
            var made = 0
            var answered = 0
            var filled = false
            emit("window \(window)")
            while true {
                while made - answered < window {
                    let i = made
                    made += 1
                    let kind = Kind.allCases[pick(&random)]
                    emit("made \(i) \(kind.rawValue)")
                    let key = ChildKey(unchecked: "i\(i)")
                    let answer: (DatabaseError?) -> Void = { error in
                        answered += 1
                        if let error { emit("failed \(i) \(error.code)") } else { emit("acked \(i)") }
                    }
                    switch kind {
                    case .set:
                        try root.child("sets/i\(i)").setNode(Node(children: [(ChildKey(unchecked: "v"), Node(.int(Int64(i))))]), completion: answer)
                    case .update:
                        try root.updateNodes(
                            [
                                (Path(keys: ["ulog", key]), Node(.bool(true))),
                                (Path(keys: ["upairs", key]), pair(i)),
                                ("utotal", increment),
                            ], completion: answer)
                    case .increment:
                        try root.child("incs/i\(i)").setNode(increment, completion: answer)
                    case .transaction:
                        try root.child("txs").runTransaction({ current in
                            var next = current
                            let count = current.child("count").leafValue.flatMap { $0.doubleValue } ?? 0
                            next.set(Node(.int(Int64(count) + 1)), at: "count")
                            next.set(Node(.bool(true)), at: Path(keys: ["ids", key]))
                            return .commit(next)
                        }) { result in
                            answered += 1
                            switch result {
                            case .success(let outcome) where outcome.committed: emit("acked \(i)")
                            case .success: emit("failed \(i) aborted")
                            case .failure(let error): emit("failed \(i) \(error.code)")
                            }
                        }
                    case .import:
                        let children = (0..<importSize).map { (ChildKey(unchecked: "c\($0)"), Node(.int(Int64(i)))) }
                        try root.child("imports/i\(i)").setNode(Node(children: children), completion: answer)
                    }
                }
                try ember.run { made - answered < window }
                // The tick has ended: unless its commit failed, every write so far is stored.
                if writer.lastStoreError == nil && !filled { emit("queued \(made - 1)") }
                if made >= fillAfter && !filled {
                    // The disk fills: neither store gets another page.
                    filled = true
                    try ember.server.store?.setMaximumSize(0)
                    try ember.clientStore(writer.name)?.setMaximumSize(0)
                    emit("full")
                }
            }
        } catch {
            fail("\(error)")
        }
    }

    /// A kind for the next write: imports are rarer (each is 1,000 children).
    private static func pick(_ random: inout SeededRandom) -> Int {
        let roll = Int(random.next() % 100)
        switch roll {
        case ..<25: return 0
        case ..<50: return 1
        case ..<72: return 2
        case ..<95: return 3
        default: return 4
        }
    }

    /// Restarts on the directory, lets the writer's queue go out, prints `restored N` and the tree.
    private static func recover(_ arguments: [String]) {
        guard arguments.count >= 2, let mode = Durability(rawValue: arguments[1]) else {
            fail("usage: ember-harness torture-recover DIR MODE")
        }
        do {
            let ember = try open(arguments[0], mode, seed: 99)
            for notice in ember.notices { emit("notice \(notice.code)") }
            let writer = try ember.client(named: "writer")
            emit("restored \(writer.pendingWriteCount)")
            try ember.run { writer.pendingWriteCount == 0 && writer.connectionState == .connected }
            try ember.flush()
            emit("tree \(ember.server.value(at: .root).jsonString())")
            try ember.close()
        } catch {
            fail("\(error)")
        }
    }

    /// Tries to open a directory another process holds: prints `refused CODE` or `opened`.
    private static func intruder(_ arguments: [String]) {
        guard let directory = arguments.first else { fail("usage: ember-harness torture-intruder DIR") }
        do {
            let ember = try open(directory, .normal, seed: 7)
            emit("opened")
            try ember.close()
        } catch let error as StoreError {
            emit("refused \(error.code)")
        } catch {
            emit("refused \(error)")
        }
    }

    // MARK: The driver

    /// What one trial found.
    struct Tally {
        var trials = 0
        var made = 0
        var acknowledged = 0
        var refused = 0
        var lost = 0
        var unsent = 0
        var doubled = 0
        var resurrected = 0
        var partial = 0
        var intruded = 0
        var broken = 0

        static func + (a: Tally, b: Tally) -> Tally {
            Tally(
                trials: a.trials + b.trials, made: a.made + b.made, acknowledged: a.acknowledged + b.acknowledged,
                refused: a.refused + b.refused, lost: a.lost + b.lost, unsent: a.unsent + b.unsent,
                doubled: a.doubled + b.doubled, resurrected: a.resurrected + b.resurrected, partial: a.partial + b.partial,
                intruded: a.intruded + b.intruded, broken: a.broken + b.broken)
        }

        /// Whether everything that must be 0 is.
        var isClean: Bool { lost + unsent + doubled + resurrected + partial + intruded + broken == 0 }

        var summary: String {
            "trials \(trials), writes made \(made), acknowledged \(acknowledged), refused \(refused); "
                + "lost \(lost), queued but unsent \(unsent), doubled \(doubled), refused but applied \(resurrected), "
                + "partial \(partial), second process let in \(intruded), recoveries failed \(broken)"
        }
    }

    private static func drive(_ arguments: [String]) {
        var trials = 300
        var firstSeed: UInt64 = 1
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch arguments[index] {
            case "--trials": trials = Int(value) ?? trials
            case "--seed": firstSeed = UInt64(value) ?? firstSeed
            default: fail("usage: ember-harness torture [--trials N] [--seed S]")
            }
            index += 2
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).path
        var total = Tally()
        let started = Date()
        for trial in 0..<trials {
            let seed = firstSeed + UInt64(trial)
            let mode = Durability.allCases[trial % 3]
            let fills = trial % 4 == 3
            let intrudes = trial % 5 == 2
            let tally = runTrial(executable: executable, seed: seed, mode: mode, fills: fills, intrudes: intrudes)
            total = total + tally
            emit(
                "trial \(trial + 1)/\(trials) seed \(seed) \(mode)\(fills ? " full-disk" : "")\(intrudes ? " second-process" : ""): "
                    + "made \(tally.made), acked \(tally.acknowledged), refused \(tally.refused)"
                    + (tally.isClean ? "" : " PROBLEM \(tally.summary)"))
        }
        emit("torture: \(total.summary) (\(Int(Date().timeIntervalSince(started))) s)")
        exit(total.isClean ? 0 : 1)
    }

    private static func runTrial(executable: String, seed: UInt64, mode: Durability, fills: Bool, intrudes: Bool) -> Tally {
        var tally = Tally(trials: 1)
        let directory = NSTemporaryDirectory() + "ember-torture-\(getpid())-\(seed)"
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededRandom(seed: seed &* 0x9E37_79B9)
        let delay = Int(random.next() % 500) + 20
        var lines: [String]
        do {
            let writer = try ChildProcess(executable, ["torture-writer", directory, mode.rawValue, String(seed), fills ? "full" : "room"])
            // Let it start writing, then kill it at a random moment.
            _ = writer.waitForLine(prefix: "made ", timeout: 30)
            if intrudes {
                Thread.sleep(forTimeInterval: Double(delay / 2) / 1000)
                let intruder = try ChildProcess(executable, ["torture-intruder", directory])
                let answer = intruder.finish(timeout: 30)
                if answer.contains("opened") || !answer.contains(where: { $0.hasPrefix("refused database_in_use") }) {
                    tally.intruded += 1
                    emit("  second process: \(answer)")
                }
                Thread.sleep(forTimeInterval: Double(delay - delay / 2) / 1000)
            } else {
                Thread.sleep(forTimeInterval: Double(delay) / 1000)
            }
            writer.kill()
            lines = writer.finish(timeout: 30)
        } catch {
            emit("  cannot run the writer: \(error)")
            tally.broken += 1
            return tally
        }
        var kinds: [Int: Kind] = [:]
        var acked: Set<Int> = []
        var failed: [Int: String] = [:]
        var queued = -1
        for line in lines {
            let words = line.split(separator: " ")
            guard words.count >= 2, let i = Int(words[1]) else { continue }
            switch words[0] {
            case "made" where words.count == 3: kinds[i] = Kind(rawValue: String(words[2]))
            case "acked": acked.insert(i)
            case "failed" where words.count == 3: failed[i] = String(words[2])
            case "queued": queued = max(queued, i)
            default: break
            }
        }
        tally.made = kinds.count
        tally.acknowledged = acked.count
        tally.refused = failed.count
        let recovered: [String]
        do {
            let process = try ChildProcess(executable, ["torture-recover", directory, mode.rawValue])
            recovered = process.finish(timeout: 120)
            if process.timedOut { emit("  recovery hung") }
        } catch {
            recovered = []
        }
        guard let treeLine = recovered.first(where: { $0.hasPrefix("tree ") }),
            let tree = try? Node(jsonText: String(treeLine.dropFirst("tree ".count)))
        else {
            emit("  recovery failed: \(recovered.suffix(3))")
            tally.broken += 1
            return tally
        }
        for (i, kind) in kinds {
            let key = ChildKey(unchecked: "i\(i)")
            let applied: Bool
            switch kind {
            case .set:
                applied = !tree.child("sets").child(key).isEmpty
            case .update:
                applied = !tree.child("ulog").child(key).isEmpty
                let pair = tree.child("upairs").child(key)
                let whole = Self.pair(i)
                if applied != !pair.isEmpty || (applied && pair != whole) { tally.partial += 1 }
            case .increment:
                let value = tree.child("incs").child(key)
                applied = !value.isEmpty
                if applied && value != Node(.int(1)) { tally.doubled += 1 }
            case .transaction:
                applied = !tree.child("txs").child("ids").child(key).isEmpty
            case .import:
                let children = tree.child("imports").child(key)
                applied = !children.isEmpty
                if applied && children.childCount != importSize { tally.partial += 1 }
            }
            if acked.contains(i) && !applied { tally.lost += 1 }
            if let code = failed[i], applied {
                tally.resurrected += 1
                emit("  write \(i) (\(kind.rawValue)) was refused (\(code)) and applied later")
            }
            // Transactions are not stored: one unanswered at the kill may be gone.
            if i <= queued && kind != .transaction && failed[i] == nil && !applied { tally.unsent += 1 }
        }
        let logged = tree.child("ulog").childCount
        let total = tree.child("utotal").leafValue.flatMap { $0.doubleValue }.map { Int($0) } ?? 0
        if total != logged { tally.doubled += abs(total - logged) }
        let ids = tree.child("txs").child("ids").childCount
        let count = tree.child("txs").child("count").leafValue.flatMap { $0.doubleValue }.map { Int($0) } ?? 0
        if count != ids { tally.doubled += abs(count - ids) }
        if !tally.isClean { emit("  kill after \(delay) ms; queued up to \(queued); \(tally.summary)") }
        return tally
    }
}

/// A child process whose standard output is read line by line.
final class ChildProcess {
    private let process = Process()
    private let output = Pipe()
    private var buffer = Data()
    /// Whether ``finish(timeout:)`` had to kill it.
    private(set) var timedOut = false

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Reads until a line starts with `prefix`, the process ends, or `timeout` seconds pass.
    func waitForLine(prefix: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lines().contains(where: { $0.hasPrefix(prefix) }) { return true }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            buffer += chunk
        }
        return false
    }

    func kill() {
        Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Reads to the end (killing the process after `timeout` seconds) and returns every line.
    func finish(timeout: Double) -> [String] {
        let pid = process.processIdentifier
        let started = Date()
        let watchdog = DispatchWorkItem { Glibc.kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        buffer += output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        timedOut = Date().timeIntervalSince(started) >= timeout
        return lines()
    }

    private func lines() -> [String] {
        String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}

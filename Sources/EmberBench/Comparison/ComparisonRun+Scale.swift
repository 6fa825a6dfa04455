import EmberTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 38's figures: the generated export imported, opened and read by the real `ember`
/// (each run a process of its own, spawn to exit, with its peak resident memory), beside
/// SQLite holding the same records as JSON rows and Python's `json.load` on the file.
extension ComparisonRun {
    func scale() {
        guard let emberPath = setup.ember else {
            table.add(group: "scale", workload: "the data users have", ember: .notMeasured("no release ember given (--ember)"), peers: [])
            return
        }
        // Quick (CI): a tenth of the export, so that the instrument runs; the figures of
        // BENCHMARKS.md are from the full size.
        let size = quick ? ScaleBenchmarks.ExportSize(users: 10_000, messages: 20_000) : .standard
        let runs = quick ? 1 : 3
        let memoryProblem = ScaleBenchmarks.peakMemoryProblem()
        if let memoryProblem { printError("scale: peak memory not measured: \(memoryProblem)") }
        let directory = TemporaryDirectory.make("compare-scale")
        defer { TemporaryDirectory.remove(directory) }
        let export = directory + "/export.json"
        let jsonBytes = ScaleBenchmarks.writeExport(size, to: export)
        let rulesFile = directory + "/rules.json"
        try! ScaleBenchmarks.rules.write(toFile: rulesFile, atomically: true, encoding: .utf8)
        let megabytes = String(format: "%.1f MB", Double(jsonBytes) / 1e6)
        let described = "\(Figure.grouped(Double(size.users))) users and \(Figure.grouped(Double(size.messages))) messages, \(megabytes) of JSON"
        printError("scale: the export holds \(described)")

        // Import: a fresh directory each run.
        let database = directory + "/db"
        var imports: [ScaleBenchmarks.Run] = []
        var importFailure: String?
        for _ in 0..<runs {
            try? FileManager.default.removeItem(atPath: database)
            let run = ScaleBenchmarks.spawn([emberPath, "--db", database, "-q", "--rules", rulesFile, "-c", "import / \(export)"])
            guard run.status == 0 else {
                importFailure = "import failed: \(run.error.suffix(300))"
                break
            }
            imports.append(run)
        }
        let disk = ScaleBenchmarks.diskBytes(database)

        // SQLite: the same records as JSON rows, imported by SQLite's JSON functions.
        let sqliteFile = directory + "/peer.sqlite"
        var sqliteImports: [ScaleBenchmarks.Run] = []
        if setup.peers {
            for _ in 0..<runs {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: sqliteFile + suffix) }
                let run = ScaleBenchmarks.spawn(["sqlite3", sqliteFile, ScaleBenchmarks.sqliteImportScript(export: export)])
                guard run.status == 0 else { break }
                sqliteImports.append(run)
            }
        }
        let python = ["python3", "-c", "import json,sys; d=json.load(open(sys.argv[1])); print(d['users']['u000042']['name'])", export]

        func times(_ runs: [ScaleBenchmarks.Run]) -> Measurement {
            runs.isEmpty ? .notMeasured("failed") : .measured(.latency(durations: runs.map(\.elapsed)))
        }
        func peaks(_ runs: [ScaleBenchmarks.Run]) -> Measurement {
            if let memoryProblem { return .notMeasured(memoryProblem) }
            return runs.isEmpty ? .notMeasured("failed") : .measured(Figure(runs: runs.map { Double($0.peakBytes) / 1e6 }, unit: .bytes("MB")))
        }
        func peer(_ body: () -> Measurement) -> Measurement {
            setup.peers ? body() : .notMeasured("peers off (--no-peers)")
        }
        func repeated(_ arguments: [String], count: Int, expecting text: String) -> [ScaleBenchmarks.Run] {
            _ = ScaleBenchmarks.spawn(arguments)
            var result: [ScaleBenchmarks.Run] = []
            for _ in 0..<count {
                let run = ScaleBenchmarks.spawn(arguments)
                guard run.status == 0, run.output.contains(text) else {
                    printError("scale: \(arguments.prefix(4).joined(separator: " ")) failed: \(run.error.suffix(300))")
                    return []
                }
                result.append(run)
            }
            return result
        }
        let pythonRuns = setup.peers ? repeated(python, count: runs, expecting: "User 42") : []

        table.add(
            group: "scale", workload: "import the export (\(described)): `ember --db DIR -c 'import / FILE'`, spawn to exit",
            ember: importFailure.map(Measurement.notMeasured) ?? times(imports),
            peers: [
                .init(peer: "SQLite: the same records as JSON rows (`json_each` of the file), with an index on the score", measurement: peer { times(sqliteImports) }),
                .init(peer: "Python: `json.load` of the file", measurement: peer { times(pythonRuns) }),
            ])
        table.add(
            group: "scale", workload: "import the export: peak resident memory (target ≤ 3× the JSON, \(String(format: "%.0f MB", 3 * Double(jsonBytes) / 1e6)))",
            ember: importFailure.map(Measurement.notMeasured) ?? peaks(imports),
            peers: [
                .init(peer: "SQLite import", measurement: peer { peaks(sqliteImports) }),
                .init(peer: "Python `json.load`", measurement: peer { peaks(pythonRuns) }),
            ])
        table.add(
            group: "scale", workload: "the database directory on disk (target ≤ 2× the JSON, \(String(format: "%.0f MB", 2 * Double(jsonBytes) / 1e6)))",
            ember: importFailure != nil ? .notMeasured("import failed") : .measured(Figure(runs: [Double(disk) / 1e6], unit: .bytes("MB"))),
            peers: [
                .init(peer: "SQLite file (JSON rows and the score index)", measurement: peer {
                    sqliteImports.isEmpty ? .notMeasured("failed") : .measured(Figure(runs: [Double(ScaleBenchmarks.fileBytes(sqliteFile)) / 1e6], unit: .bytes("MB")))
                }),
                .init(peer: "the JSON file", measurement: .measured(Figure(runs: [Double(jsonBytes) / 1e6], unit: .bytes("MB")))),
            ])
        guard importFailure == nil else { return }

        // Open and read one leaf, a process each time.
        let reads = quick ? 3 : 10
        let leaf = repeated([emberPath, "--db", database, "-q", "-c", "get /users/u000042/name"], count: reads, expecting: "User 42")
        let sqliteLeaf = setup.peers
            ? repeated(["sqlite3", sqliteFile, "SELECT json_extract(doc, '$.name') FROM users WHERE id = 'u000042'"], count: reads, expecting: "User 42") : []
        table.add(
            group: "scale", workload: "open the database and read one leaf (`get /users/u000042/name`), spawn to exit (target ≤ 50 ms)",
            ember: times(leaf),
            peers: [
                .init(peer: "`sqlite3 FILE \"SELECT json_extract(doc, '$.name') … WHERE id = 'u000042'\"`", measurement: peer { times(sqliteLeaf) }),
                .init(peer: "Python: `json.load` of the file, then the leaf", measurement: peer { times(pythonRuns) }),
            ])
        table.add(
            group: "scale", workload: "open and read one leaf: peak resident memory (target ≤ 64 MB)",
            ember: peaks(leaf),
            peers: [
                .init(peer: "sqlite3", measurement: peer { peaks(sqliteLeaf) }),
                .init(peer: "Python", measurement: peer { peaks(pythonRuns) }),
            ])

        // The indexed top 10 right after opening.
        let top = repeated(
            [emberPath, "--db", database, "-q", "-c", "get /users orderBy child score limitToLast 10"], count: reads, expecting: "u0")
        let sqliteTop = setup.peers
            ? repeated(
                ["sqlite3", sqliteFile, "SELECT id FROM users ORDER BY json_extract(doc, '$.score') DESC LIMIT 10"], count: reads, expecting: "u0") : []
        table.add(
            group: "scale", workload: "indexed top 10 of \(Figure.grouped(Double(size.users))) users (`.indexOn` score) right after opening, spawn to exit (target ≤ 50 ms)",
            ember: times(top),
            peers: [.init(peer: "sqlite3, the expression index on the score", measurement: peer { times(sqliteTop) })])

        // The whole tree in memory, held by a listen on `/`.
        let whole = ScaleBenchmarks.spawn([setup.bench, "scale-listen", database])
        let wholeBytes = whole.status == 0 ? Int(whole.output.trimmingCharacters(in: .whitespacesAndNewlines)) : nil
        table.add(
            group: "scale", workload: "the whole tree loaded (a listen on `/`): resident memory of the process (target ≤ 3× the JSON, \(String(format: "%.0f MB", 3 * Double(jsonBytes) / 1e6)))",
            ember: wholeBytes.map { .measured(Figure(runs: [Double($0) / 1e6], unit: .bytes("MB"))) }
                ?? .notMeasured("`ember-bench scale-listen` failed: \(whole.error.suffix(300))"),
            peers: [.init(peer: "Python: `json.load` of the file (peak resident)", measurement: peer { peaks(pythonRuns) })])

        // A second process reads while a `-c` script writes.
        let writer = try? ChildProcess.start(
            [emberPath, "--db", database, "-q", "-e", "for i = 1, 200000 do local h = db:ref('/scratch/w' .. i):set(i); if i % 100 == 0 then h:wait() end end"])
        usleep(500_000)
        let concurrent = ScaleBenchmarks.spawn([emberPath, "--db", database, "-q", "-c", "get /users/u000042/name"])
        writer?.stop(grace: 1)
        let concurrentMeasurement: Measurement =
            concurrent.status == 0 && concurrent.output.contains("User 42")
            ? .measured(.latency(durations: [concurrent.elapsed]))
            : .notMeasured("refused: \(concurrent.error.split(separator: "\n").first.map(String.init) ?? "exit status \(concurrent.status)")")
        table.add(
            group: "scale", workload: "a second process reads one leaf (spawn to exit) while a script writes 200,000 leaves, waiting for every 100th (target: answered, no `database_in_use`)",
            ember: concurrentMeasurement, peers: [])

        // ... and while a script runs a loop that never waits (it writes now and then).
        let busy = try? ChildProcess.start([
            emberPath, "--db", database, "-q", "-e",
            "local t = os.clock(); local i = 0; while os.clock() - t < 10 do i = i + 1; if i % 1000 == 0 then db:ref('/scratch/busy'):set(i) end end",
        ])
        usleep(500_000)
        let busyRead = ScaleBenchmarks.spawn([emberPath, "--db", database, "-q", "-c", "get /users/u000042/name"])
        busy?.stop(grace: 1)
        table.add(
            group: "scale", workload: "a second process reads one leaf (spawn to exit) while a script runs a loop that never waits (target: answered, no `database_in_use`)",
            ember: busyRead.status == 0 && busyRead.output.contains("User 42")
                ? .measured(.latency(durations: [busyRead.elapsed]))
                : .notMeasured("refused: \(busyRead.error.split(separator: "\n").first.map(String.init) ?? "exit status \(busyRead.status)")"),
            peers: [])

        guard !quick else { return }
        // Ten times the data: import, then open and read one leaf.
        let tenfold = ScaleBenchmarks.ExportSize.standard.times(10)
        let bigExport = directory + "/export10.json"
        let bigBytes = ScaleBenchmarks.writeExport(tenfold, to: bigExport)
        try? FileManager.default.removeItem(atPath: export)
        let bigDatabase = directory + "/db10"
        let bigImport = ScaleBenchmarks.spawn([emberPath, "--db", bigDatabase, "-q", "-c", "import / \(bigExport)"])
        table.add(
            group: "scale",
            workload: "tenfold export (\(String(format: "%.0f MB", Double(bigBytes) / 1e6))): import, spawn to exit (target ≤ 10× the small one's)",
            ember: bigImport.status == 0 ? times([bigImport]) : .notMeasured("import failed: \(bigImport.error.suffix(300))"),
            peers: [.init(peer: "its peak resident memory", measurement: bigImport.status == 0 ? peaks([bigImport]) : .notMeasured("failed"))])
        guard bigImport.status == 0 else { return }
        let bigLeaf = repeated([emberPath, "--db", bigDatabase, "-q", "-c", "get /users/u000042/name"], count: reads, expecting: "User 42")
        table.add(
            group: "scale", workload: "tenfold export: open and read one leaf, spawn to exit (target ≤ 1.2× the small one's)",
            ember: times(bigLeaf),
            peers: [.init(peer: "its peak resident memory", measurement: peaks(bigLeaf))])
    }
}

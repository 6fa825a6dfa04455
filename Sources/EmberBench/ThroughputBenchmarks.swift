import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberRules
import EmberServer
import EmberSync
import EmberTestSupport

/// The realtime pair of issue 4, end to end through the in-process network: writes that a
/// client makes and the server acknowledges while another client listens, and one write fanned
/// out to many listening clients.
struct ThroughputBenchmarks {
    let report: BenchReport

    /// One client sets leaves (`bench/k0` … `bench/k999`, round robin) with at most `window`
    /// writes waiting for their acknowledgement; a second client listens to `bench` for every
    /// child event. Timed until every write is acknowledged and every event delivered.
    /// Runs `repetitions` times (after one unmeasured warm-up of a tenth of the size) and
    /// reports the median run with the spread: this machine is a VM whose neighbours make
    /// single runs vary by up to 20%.
    func acknowledgedWrites(count: Int, window: Int, repetitions: Int, rules: Ruleset? = nil) {
        let runs = Repetitions.measure(size: count, runs: repetitions) { acknowledgedWritesOnce(count: $0, window: window, rules: rules) }.sorted()
        let median = runs[runs.count / 2]
        let rates = runs.map { Int(Double(count) / $0.seconds) }
        report.row(
            "\(count) leaf sets, up to \(window) unacknowledged, a second client listening\(rules == nil ? "" : ", ten rules"): "
                + "\(rates[rates.count / 2]) writes/s (median of \(repetitions); \(rates.last!)–\(rates.first!))",
            total: median, operations: count)
    }

    /// Ten security rules with `$wildcards` and `auth` checks. Each write of
    /// ``acknowledgedWritesOnce(count:window:rules:)`` is checked by two (`.write` and
    /// `.validate` at `bench/$key`; nothing above grants), its listen by one.
    static let tenRules = #"""
        {"rules": {
          ".read": false,
          "bench": {
            ".read": "auth != null",
            "$key": {
              ".write": "auth != null && auth.uid === 'writer' && $key.beginsWith('k')",
              ".validate": "newData.isNumber() && newData.val() >= 0"
            }
          },
          "users": {
            "$uid": {
              ".read": "$uid === auth.uid",
              ".write": "$uid === auth.uid",
              "name": {".validate": "newData.isString() && newData.val().length < 50"},
              "age": {".validate": "newData.isNumber()"}
            }
          },
          "rooms": {"$room": {
            ".read": "root.child('members').child($room).child(auth.uid).exists()",
            "$message": {".write": "newData.child('uid').val() === auth.uid"}
          }}
        }}
        """#

    /// One run of ``acknowledgedWrites(count:window:repetitions:)``: the time it took. With
    /// `rules`, the server enforces them and both clients are signed in.
    func acknowledgedWritesOnce(count: Int, window: Int, rules: Ruleset? = nil) -> Duration {
        let ember = Ember(clock: SystemClock(), random: SeededRandom(seed: 1))
        if let rules { try! ember.setRules(rules) }
        let writer = try! ember.client(named: "writer")
        let listener = try! ember.client(named: "listener")
        if rules != nil {
            try! writer.signIn(claims: ["uid": "writer"])
            try! listener.signIn(claims: ["uid": "listener"])
        }
        var events = 0
        try! listener.reference("bench").query.observe([.childAdded, .childChanged]) { _ in events += 1 }
        try! ember.flush()
        let keys = (0..<1_000).map { try! writer.reference("bench/k\($0)") }
        var acknowledged = 0
        var failed = 0
        let time = Stopwatch.measure {
            var sent = 0
            while sent < count {
                while sent < count && sent - (acknowledged + failed) < window {
                    try! keys[sent % keys.count].setValue(.int(Int64(sent))) { error in
                        if error == nil { acknowledged += 1 } else { failed += 1 }
                    }
                    sent += 1
                }
                try! ember.run { sent - (acknowledged + failed) < window || acknowledged + failed == count }
            }
            try! ember.run { acknowledged + failed == count && events == count }
        }
        precondition(failed == 0 && events == count, "every write acknowledged and seen: \(acknowledged), \(events)")
        precondition(ember.server.value(at: "bench").childCount == min(count, keys.count))
        return time
    }

    /// `clients` clients each listen to `room/message` for `value`; a writer sets it `count`
    /// times (each acknowledged before the next). Timed until every client has every event.
    func fanOut(clients: Int, count: Int) {
        let time = fanOutOnce(clients: clients, count: count)
        let delivered = clients * count
        report.row(
            "\(count) writes seen by \(clients) listening clients: \(Int(Double(delivered) / time.seconds)) events/s",
            total: time, operations: delivered)
    }

    /// One run of ``fanOut(clients:count:)``: the time until every client had every message.
    func fanOutOnce(clients: Int, count: Int) -> Duration {
        let ember = Ember(clock: SystemClock(), random: SeededRandom(seed: 2))
        let writer = try! ember.client(named: "writer")
        var events = 0
        for index in 0..<clients {
            let client = try! ember.client(named: "l\(index)")
            try! client.reference("room/message").observe(.value) { _, _ in events += 1 }
        }
        try! ember.flush()
        let initial = events
        let message = try! writer.reference("room/message")
        let time = Stopwatch.measure {
            for index in 0..<count {
                var done = false
                try! message.setValue(.string("message \(index)")) { _ in done = true }
                try! ember.run { done }
            }
            try! ember.flush()
        }
        let delivered = events - initial
        precondition(delivered == clients * count, "every client sees every message: \(delivered)")
        return time
    }
}

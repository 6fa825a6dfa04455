/// The one table `scripts/bench` prints: each workload's Ember figure beside every peer's figure
/// from the same run, as ratios.
///
/// Rows arrive as workloads finish (each is also printed at once on standard error, so a long
/// run shows progress); ``render()`` gives the whole table as Markdown.
final class ComparisonTable {
    /// One peer's figure for a workload, with what the peer does to be comparable.
    struct PeerResult {
        /// The peer and its equivalent of the workload (`Redis SET, 50 clients`).
        let peer: String
        let measurement: Measurement
    }

    /// One workload: Ember's figure and the peers'.
    struct Row {
        let group: String
        let workload: String
        let ember: Measurement
        let peers: [PeerResult]
    }

    private(set) var rows: [Row] = []

    /// Adds a workload's figures and reports them on standard error.
    func add(group: String, workload: String, ember: Measurement, peers: [PeerResult]) {
        let row = Row(group: group, workload: workload, ember: ember, peers: peers)
        rows.append(row)
        var progress = "[\(group)] \(workload): Ember \(ember.formatted)"
        for peer in peers { progress += "; \(peer.peer): \(peer.measurement.formatted)" }
        printError(progress)
    }

    /// How Ember compares with a peer: `2.31× ahead`, `0.5× (behind)`, or `—` without both figures.
    static func ratio(ember: Measurement, peer: Measurement) -> String {
        guard let mine = ember.figure, let theirs = peer.figure, mine.unit == theirs.unit else { return "—" }
        let advantage = mine.advantage(over: theirs)
        if advantage >= 1 { return "**\(Figure.ratio(advantage))× ahead**" }
        return "\(Figure.ratio(1 / advantage))× behind"
    }

    /// The table as Markdown: one line per peer, the workload and Ember's figure on the first.
    func render() -> String {
        var lines = [
            "| group | workload | Ember (median; min–max) | peer: its equivalent | peer (median; min–max) | Ember vs peer |",
            "|---|---|---:|---|---:|---:|",
        ]
        for row in rows {
            if row.peers.isEmpty {
                lines.append("| \(row.group) | \(row.workload) | \(row.ember.formatted) | — | — | — |")
                continue
            }
            for (index, peer) in row.peers.enumerated() {
                let head = index == 0 ? "| \(row.group) | \(row.workload) | \(row.ember.formatted) " : "| | ″ | ″ "
                lines.append(head + "| \(peer.peer) | \(peer.measurement.formatted) | \(Self.ratio(ember: row.ember, peer: peer.measurement)) |")
            }
        }
        return lines.joined(separator: "\n")
    }
}

extension Figure {
    /// A ratio with two significant decimals below 10 and none above.
    static func ratio(_ value: Double) -> String {
        value >= 10 ? String(Int(value.rounded())) : String((value * 100).rounded() / 100)
    }
}

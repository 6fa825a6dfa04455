/// The deterministic data sets that Ember and its peers load, so that every engine stores and
/// queries exactly the same keys and scores.
///
/// Every formula is plain integer arithmetic (the Lua scripts for Tarantool compute the same
/// values in doubles, exact below 2^53: `score` stays exact for `i` up to about 3.3 million).
enum BenchData {
    /// The key of child `i`: `"k<i>"`.
    static func key(_ i: Int) -> String { "k\(i)" }

    /// The score of child `i`, in `0..<1_000_000`; a permutation of that range for
    /// `i < 1_000_000` (2654435761 is coprime with 10^6), so the first million scores never tie.
    static func score(_ i: Int) -> Int { Int((UInt64(i) &* 2654435761) % 1_000_000) }

    /// Which of `n` children live change `j` rewrites.
    ///
    /// `j` runs on across a workload's warm-up and measured runs (the warm-up takes the first
    /// values, each run the next ones), so that every run changes scores.
    static func changedIndex(_ j: Int, _ n: Int) -> Int { (j &* 7919) % n }

    /// The new score live change `j` gives its child: `score(n + j)`.
    static func changedScore(_ j: Int, _ n: Int) -> Int { score(n + j) }
}

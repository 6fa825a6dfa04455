import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Issue 6's start-up workload: how long a command takes from `exec` to exit, for `ember` and
/// for the tools people compare it with, each run many times in the same session.
struct StartupBenchmarks {
    /// One program to time.
    struct Subject {
        let name: String
        let arguments: [String]
    }

    /// Runs `arguments` once with standard output and error discarded; returns the wall time,
    /// or `nil` when the program cannot be started or fails.
    static func time(_ arguments: [String]) -> Duration? {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        guard posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let elapsed = clock.now - start
        return status == 0 ? elapsed : nil
    }

    /// Times each subject `runs` times (after 3 warm-up runs), interleaved so that they share
    /// the machine's state, and prints median, 90th percentile and minimum.
    static func run(subjects: [Subject], runs: Int) {
        print("\n### Start-up: from exec to exit (\(runs) runs each, interleaved, after 3 warm-up runs)\n")
        print("| command | median | p90 | min |")
        print("|---|---:|---:|---:|")
        let measured = samples(subjects: subjects, runs: runs)
        for (index, subject) in subjects.enumerated() {
            guard let durations = measured[index] else {
                print("| `\(subject.name)` | not available | | |")
                continue
            }
            let sorted = durations.sorted()
            func milliseconds(_ duration: Duration) -> String {
                let value = Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
                return String(format: "%.2f ms", value)
            }
            print("| `\(subject.name)` | \(milliseconds(sorted[sorted.count / 2])) | \(milliseconds(sorted[sorted.count * 9 / 10])) | \(milliseconds(sorted[0])) |")
        }
    }

    /// Times each subject `runs` times (after 3 warm-up runs), interleaved; `nil` for a subject
    /// that could not be started or failed.
    static func samples(subjects: [Subject], runs: Int) -> [[Duration]?] {
        var samples = Array(repeating: [Duration](), count: subjects.count)
        var failed = Set<Int>()
        for round in 0..<(runs + 3) {
            for (index, subject) in subjects.enumerated() where !failed.contains(index) {
                guard let elapsed = time(subject.arguments) else {
                    failed.insert(index)
                    continue
                }
                if round >= 3 { samples[index].append(elapsed) }
            }
        }
        return samples.indices.map { failed.contains($0) ? nil : samples[$0] }
    }
}

import EmberCore
import EmberShell
import EmberTestSupport

/// A quiet in-memory session on a manual clock with seeded randomness, writing into a
/// ``CapturedOutput``: what unit tests of the shell start from.
func makeTestShell(json: Bool = false, seed: UInt64 = 7) throws -> (Shell, CapturedOutput) {
    var options = ShellOptions(environment: [:])
    options.databaseDirectory = nil
    options.quiet = true
    options.jsonOutput = json
    let output = CapturedOutput()
    return (try Shell(options: options, output: output, clock: ManualClock(), random: SeededRandom(seed: seed)), output)
}

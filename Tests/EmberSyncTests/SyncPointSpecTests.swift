import EmberCore
import EmberSync
import EmberTestSupport
import Testing

/// Runs the Firebase SDKs' shared SyncPoint spec (`../shared/conformance/syncPointSpec.json`, or
/// the directory in `EMBER_CONFORMANCE_DIR`) against ``SyncTree``, and checks that the runner
/// notices a change to any one expected event.
@Suite struct SyncPointSpecTests {
    /// The fixture's cases, read once; the error says where the file was looked for.
    static let loaded: Result<[SyncPointSpecCase], any Error> = Result { try SyncPointSpecRunner.loadCases() }

    /// The case names, for the per-case test (none when the fixture is missing).
    static let caseNames: [String] = ((try? loaded.get()) ?? []).map(\.name)

    /// The fixture's cases, or the error that says why they could not be read.
    static func cases() throws -> [SyncPointSpecCase] {
        try loaded.get()
    }

    @Test func everyCasePassesAtBothBasePaths() throws {
        let cases = try Self.cases()
        #expect(
            cases.count == SyncPointSpec.expectedCaseCount,
            "expected the firebase-js-sdk copy with \(SyncPointSpec.expectedCaseCount) cases, found \(cases.count)")
        for base in SyncPointSpec.basePaths {
            var passed = 0
            for testCase in cases {
                switch SyncPointSpecRunner.run(testCase, basePath: base) {
                case .passed: passed += 1
                case .failed(let failure): Issue.record("\(failure.message)")
                }
            }
            print("syncPointSpec: \(passed)/\(cases.count) passed at base \"\(SyncPointSpec.spelled(base))\"")
            #expect(passed == cases.count, "\(cases.count - passed) cases fail at base \"\(SyncPointSpec.spelled(base))\"")
        }
    }

    @Test("Each case at both base paths", arguments: caseNames)
    func runsCase(named name: String) throws {
        let testCase = try #require(try Self.cases().first { $0.name == name })
        for base in SyncPointSpec.basePaths {
            if let failure = SyncPointSpecRunner.run(testCase, basePath: base).failure {
                Issue.record("\(failure.message)")
            }
        }
    }

    @Test func everyMutatedExpectedEventIsCaught() throws {
        let cases = try Self.cases()
        let mutations = SyncPointSpecMutation.all(of: cases)
        checkCoverage(of: mutations, over: cases)
        let firstFailingSteps = cases.map { SyncPointSpecRunner.run($0, basePath: .root).failure?.stepIndex }
        var caught = 0
        var missed = 0
        var unevaluable = 0
        for mutation in mutations {
            if let failing = firstFailingSteps[mutation.caseIndex], failing <= mutation.stepIndex {
                unevaluable += 1
                continue
            }
            let failure = SyncPointSpecRunner.run(mutation.testCase, basePath: .root).failure
            if failure?.stepIndex == mutation.stepIndex {
                caught += 1
            } else {
                missed += 1
                let outcome = failure.map { "the run failed at step \($0.stepIndex) instead:\n\($0.message)" } ?? "the run passed"
                Issue.record("mutation not caught: \(mutation)\n\(outcome)")
            }
        }
        let kinds = SyncPointSpecMutation.Kind.allCases.map { kind in
            "\(kind.rawValue) \(mutations.filter { $0.kind == kind }.count)"
        }
        print(
            "syncPointSpec mutations: \(mutations.count) tried (\(kinds.joined(separator: ", "))), \(caught) caught, \(missed) not caught, \(unevaluable) not evaluable (the unmutated case already fails at or before the mutated step)"
        )
        #expect(missed == 0)
    }

    /// Checks that every expected event got exactly one mutation and that each mutation changed its case.
    private func checkCoverage(of mutations: [SyncPointSpecMutation], over cases: [SyncPointSpecCase]) {
        var covered: [[Int]: Int] = [:]
        for mutation in mutations {
            if mutation.testCase == cases[mutation.caseIndex] {
                Issue.record("mutation changed nothing: \(mutation)")
            }
            if let eventIndex = mutation.eventIndex {
                covered[[mutation.caseIndex, mutation.stepIndex, eventIndex], default: 0] += 1
            } else {
                #expect(mutation.kind == .addition, "only additions may name no event: \(mutation)")
            }
        }
        let eventCount = cases.reduce(0) { $0 + $1.expectedEventCount }
        #expect(covered.count == eventCount, "\(covered.count) of \(eventCount) expected events were mutated")
        #expect(covered.values.allSatisfy { $0 == 1 }, "some expected event was mutated more than once")
        for kind in SyncPointSpecMutation.Kind.allCases {
            #expect(mutations.contains { $0.kind == kind }, "no mutation of kind \(kind.rawValue)")
        }
    }
}

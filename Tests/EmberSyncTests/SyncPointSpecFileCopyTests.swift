import EmberCore
import EmberTestSupport
import Foundation
import Testing

/// The runner fails on a mutated copy of the fixture file itself, read from disk like the
/// original: the in-memory mutations of ``SyncPointSpecTests`` are backed by one end-to-end.
@Suite struct SyncPointSpecFileCopyTests {
    /// Rewrites the first expected event of the first step that has one in case `caseIndex`,
    /// with `edit`, and returns the whole fixture as text.
    static func mutatedCopy(caseIndex: Int, _ edit: ([(key: String, value: JSONValue)]) -> [(key: String, value: JSONValue)]) throws -> String {
        let text = try String(contentsOfFile: try SyncPointSpec.fixturePath(), encoding: .utf8)
        guard case .array(var cases) = try JSONValue(parsing: text),
            case .object(var testCase) = cases[caseIndex],
            let stepsAt = testCase.firstIndex(where: { $0.key == "steps" }),
            case .array(var steps) = testCase[stepsAt].value
        else { throw CocoaError(.fileReadCorruptFile) }
        for stepIndex in steps.indices {
            guard case .object(var step) = steps[stepIndex],
                let eventsAt = step.firstIndex(where: { $0.key == "events" }),
                case .array(var events) = step[eventsAt].value, !events.isEmpty,
                case .object(let event) = events[0]
            else { continue }
            events[0] = .object(edit(event))
            step[eventsAt].value = .array(events)
            steps[stepIndex] = .object(step)
            testCase[stepsAt].value = .array(steps)
            cases[caseIndex] = .object(testCase)
            return JSONValue.array(cases).serialized(pretty: true)
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    /// Writes `text` to a temporary file, loads it with the runner and runs case `caseIndex`.
    static func runCopy(_ text: String, caseIndex: Int) throws -> SyncPointSpecResult {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("syncPointSpec-\(UUID().uuidString).json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let cases = try SyncPointSpecRunner.loadCases(from: url)
        return SyncPointSpecRunner.run(cases[caseIndex], basePath: .root)
    }

    @Test("an unchanged copy passes, and a copy with one expected event changed fails", arguments: [0, 2, 30, 57, 94])
    func mutatedFileCopyFails(caseIndex: Int) throws {
        let unchanged = try Self.mutatedCopy(caseIndex: caseIndex) { $0 }
        #expect(try Self.runCopy(unchanged, caseIndex: caseIndex).isPassed)
        let wrongData = try Self.mutatedCopy(caseIndex: caseIndex) { event in
            event.map { $0.key == "data" ? (key: "data", value: .string("not what the engine says")) : $0 }
        }
        let result = try Self.runCopy(wrongData, caseIndex: caseIndex)
        #expect(!result.isPassed, "the runner must fail when an expected event's data is wrong")
        let wrongType = try Self.mutatedCopy(caseIndex: caseIndex) { event in
            event.map { member in
                guard member.key == "type", case .string(let type) = member.value else { return member }
                return (key: "type", value: .string(type == "value" ? "child_changed" : "value"))
            }
        }
        #expect(!(try Self.runCopy(wrongType, caseIndex: caseIndex).isPassed), "the runner must fail when an event's type is wrong")
    }
}

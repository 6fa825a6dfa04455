import EmberCore
import EmberSync

/// The outcome of running one SyncPoint spec case under one base path.
public enum SyncPointSpecResult: Sendable, Equatable {
    /// Every step returned the expected events.
    case passed
    /// A step went wrong; the run stopped there.
    case failed(SyncPointSpecFailure)

    /// Whether the case passed.
    public var isPassed: Bool { failure == nil }

    /// The failure, or `nil` when the case passed.
    public var failure: SyncPointSpecFailure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }
}

/// Where and how a SyncPoint spec case failed: the step, what differed, and both event lists.
public struct SyncPointSpecFailure: Error, Equatable, CustomStringConvertible {
    /// The case's name.
    public var caseName: String
    /// The base path of the run.
    public var basePath: Path
    /// The failing step's index in the case (from 0).
    public var stepIndex: Int
    /// The failing step's type ("listen", "serverUpdate", ...).
    public var stepType: String
    /// The failing step in a few words: type, absolute path, tag, write id.
    public var stepSummary: String
    /// The failing step's `.comment`, if any.
    public var stepComment: String?
    /// What went wrong, most important first: the event mismatch, then tag or listen problems.
    public var problems: [String]
    /// The events the step expects.
    public var expected: [SyncPointSpecEvent]
    /// The events the sync tree returned.
    public var actual: [Event]

    public init(
        caseName: String, basePath: Path, stepIndex: Int, stepType: String, stepSummary: String,
        stepComment: String?, problems: [String], expected: [SyncPointSpecEvent], actual: [Event]
    ) {
        self.caseName = caseName
        self.basePath = basePath
        self.stepIndex = stepIndex
        self.stepType = stepType
        self.stepSummary = stepSummary
        self.stepComment = stepComment
        self.problems = problems
        self.expected = expected
        self.actual = actual
    }

    /// The failure as a readable, multi-line message.
    public var message: String {
        var lines = [
            "syncPointSpec case \"\(caseName)\" at base \"\(SyncPointSpec.spelled(basePath))\", step \(stepIndex) (\(stepSummary)):"
        ]
        if let stepComment { lines.append("  step comment: \(stepComment)") }
        lines += problems.map { "  - \($0)" }
        lines.append("  expected events:")
        lines += expected.isEmpty
            ? ["    (none)"] : expected.enumerated().map { "    \($0.offset + 1). \($0.element.rendered(base: basePath))" }
        lines.append("  actual events:")
        lines += actual.isEmpty
            ? ["    (none)"] : actual.enumerated().map { "    \($0.offset + 1). \(SyncPointSpecMatcher.render($0.element))" }
        return lines.joined(separator: "\n")
    }

    public var description: String { message }
}

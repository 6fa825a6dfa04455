import EmberCore
import EmberSync

/// One run of one case under one base path: a fresh sync tree, write counter, listeners and tags.
struct SyncPointSpecRun {
    let caseName: String
    let basePath: Path
    let tags: SyncPointSpecRunner.TagPolicy
    private var tree: SyncTree<RecordingListenProvider>
    private var nextWriteID = 0
    private var nextRegistrationID = 1
    /// The listeners created by listen steps with a `callbackId`.
    private var registrations: [Int: RegistrationID] = [:]
    /// Fixture tag → the sync tree's tag, under ``SyncPointSpecRunner/TagPolicy/mapped``.
    private var engineTags: [Int: QueryTag] = [:]

    init(caseName: String, basePath: Path, tags: SyncPointSpecRunner.TagPolicy) {
        self.caseName = caseName
        self.basePath = basePath
        self.tags = tags
        tree = SyncTree(listenProvider: RecordingListenProvider())
    }

    /// Performs step `index` and checks its events; returns the failure, or `nil` when it passes.
    mutating func perform(_ step: SyncPointSpecStep, at index: Int) -> SyncPointSpecFailure? {
        let knownViolations = tree.listenProvider.violations.count
        var problems: [String] = []
        var actual: [Event] = []
        var matchesExactly = false
        switch step.action {
        case .listen(let path, let query, let callbackID):
            matchesExactly = true
            let spec = QuerySpec(path: basePath.appending(path), params: query?.params ?? .default)
            let registration = self.registration(for: callbackID)
            actual = tree.addEventRegistration(EventRegistration(id: registration), for: spec)
            if let query, let problem = checkTag(query, of: spec) { problems.append(problem) }
        case .unlisten(let path, let callbackID):
            matchesExactly = true
            if let registration = registrations[callbackID] {
                actual = tree.removeEventRegistration(registration, for: .default(at: basePath.appending(path)))
            } else {
                problems.append("unlisten names callbackId \(callbackID), which no earlier listen step created")
            }
        case .serverUpdate(let path, let data, let tag):
            let location = basePath.appending(path)
            if let tag {
                actual = tree.applyTaggedQueryOverwrite(data, at: location, tag: engineTag(tag))
            } else {
                actual = tree.applyServerOverwrite(data, at: location)
            }
        case .serverMerge(let path, let changes, let tag):
            let location = basePath.appending(path)
            if let tag {
                actual = tree.applyTaggedQueryMerge(Self.pairs(changes), at: location, tag: engineTag(tag))
            } else {
                actual = tree.applyServerMerge(Self.pairs(changes), at: location)
            }
        case .set(let path, let data, let visible):
            let writeID = takeWriteID()
            actual = tree.applyUserOverwrite(
                data, at: basePath.appending(path), writeID: writeID, visibility: visible ? .visible : .hidden)
        case .update(let path, let changes):
            let writeID = takeWriteID()
            actual = tree.applyUserMerge(Self.pairs(changes), at: basePath.appending(path), writeID: writeID)
        case .ackUserWrite(let writeID, let revert):
            actual = tree.ackUserWrite(WriteID(writeID), outcome: revert ? .reverted : .confirmed)
        case .suppressWarning:
            break
        }
        let mismatch =
            matchesExactly
            ? SyncPointSpecMatcher.exactMatch(expected: step.events, actual: actual)
            : SyncPointSpecMatcher.setMatch(expected: step.events, actual: actual, basePath: basePath)
        if let mismatch { problems.insert(mismatch, at: 0) }
        problems += tree.listenProvider.violations.dropFirst(knownViolations).map { "listen provider: \($0)" }
        guard !problems.isEmpty else { return nil }
        return SyncPointSpecFailure(
            caseName: caseName, basePath: basePath, stepIndex: index, stepType: step.type,
            stepSummary: summary(of: step), stepComment: step.comment, problems: problems,
            expected: step.events, actual: actual)
    }

    /// The listener for a listen step: the one created earlier under `callbackID`, or a new one.
    private mutating func registration(for callbackID: Int?) -> RegistrationID {
        if let callbackID, let existing = registrations[callbackID] { return existing }
        let created = RegistrationID(nextRegistrationID)
        nextRegistrationID += 1
        if let callbackID { registrations[callbackID] = created }
        return created
    }

    /// The next write id (0, 1, 2, ... over set and update steps).
    private mutating func takeWriteID() -> WriteID {
        defer { nextWriteID += 1 }
        return WriteID(nextWriteID)
    }

    /// After a listen: checks the tag the tree gave the query (or records it, when mapping);
    /// returns a problem, or `nil`.
    private mutating func checkTag(_ query: SyncPointSpecStep.Query, of spec: QuerySpec) -> String? {
        let assigned = tree.tag(for: spec)
        switch tags {
        case .mapped:
            if let assigned { engineTags[query.tag] = assigned }
            return nil
        case .fixtureNumbering:
            let expected = QueryTag(query.tag)
            guard !spec.loadsAllData, assigned != expected else { return nil }
            return "the sync tree gave the filtered query \(spec) \(assigned.map { "\($0)" } ?? "no tag"), the fixture expects \(expected) (each sync tree numbers filtered views 1, 2, 3, ... as it creates them)"
        }
    }

    /// The sync tree's tag for a fixture tag.
    private func engineTag(_ fixtureTag: Int) -> QueryTag {
        engineTags[fixtureTag] ?? QueryTag(fixtureTag)
    }

    /// A step in a few words, with its absolute path.
    private func summary(of step: SyncPointSpecStep) -> String {
        var text = step.type
        if let path = step.action.path { text += " at \(basePath.appending(path))" }
        switch step.action {
        case .listen(_, let query, let callbackID):
            if let query { text += " [\(query.params), expected \(QueryTag(query.tag))]" }
            if let callbackID { text += " callbackId \(callbackID)" }
        case .unlisten(_, let callbackID):
            text += " callbackId \(callbackID)"
        case .serverUpdate(_, _, let tag?), .serverMerge(_, _, let tag?):
            text += " \(QueryTag(tag))"
        case .set(_, _, false):
            text += " (hidden)"
        case .ackUserWrite(let writeID, let revert):
            text += " \(WriteID(writeID))" + (revert ? " (revert)" : "")
        default:
            break
        }
        return text
    }

    /// Merge changes in the form the sync tree takes.
    private static func pairs(_ changes: [SyncPointSpecStep.Change]) -> [(Path, Node)] {
        changes.map { ($0.path, $0.node) }
    }
}

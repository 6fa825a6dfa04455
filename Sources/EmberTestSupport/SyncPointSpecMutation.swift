import EmberCore
import EmberSync

/// A copy of a SyncPoint spec case with exactly one expected event changed, removed or added,
/// which the runner must then fail: a check that the matchers look at everything they should.
///
/// ``all(of:)`` makes one mutation per expected event, choosing the kind deterministically from
/// the event's position in the file, and a few more that append an event to a step expecting none.
/// Each mutation changes what the matchers compare (the prevName of `child_removed` and the name
/// and prevName of `value` events are never chosen, since the matchers ignore them), so a correct
/// sync tree fails the mutated case at exactly the mutated step.
public struct SyncPointSpecMutation: Sendable, CustomStringConvertible {
    /// What was done to the case.
    public enum Kind: String, Sendable, CaseIterable {
        /// An event's type changed.
        case type
        /// A child event's key changed.
        case name
        /// A child event's prevName changed (to another key, or between null and a key).
        case prevName
        /// An event's data changed: wrapped, re-prioritised, or altered below the root.
        case data
        /// An event removed.
        case removal
        /// An event added to a step.
        case addition
    }

    /// The index of the case in the list given to ``all(of:)``.
    public var caseIndex: Int
    /// The index of the changed step.
    public var stepIndex: Int
    /// The index of the expected event mutated, removed or copied; `nil` when an event was
    /// appended to a step that expects none.
    public var eventIndex: Int?
    /// What was done.
    public var kind: Kind
    /// The change, before and after.
    public var detail: String
    /// The mutated case.
    public var testCase: SyncPointSpecCase

    public var description: String {
        let event = eventIndex.map { "event \($0)" } ?? "no event"
        return "case \(caseIndex) \"\(testCase.name)\", step \(stepIndex), \(event): \(kind.rawValue): \(detail)"
    }

    /// One mutation per expected event of `cases`, plus an appended event for every 16th step
    /// that expects none.
    ///
    /// Events are numbered across the file; event *n* is removed when n % 41 == 20, duplicated at
    /// the end of its step when n % 97 == 50, and otherwise gets the first kind, starting at
    /// position n % 4 of (type, name, prevName, data), that makes a difference for its type.
    public static func all(of cases: [SyncPointSpecCase]) -> [SyncPointSpecMutation] {
        var mutations: [SyncPointSpecMutation] = []
        var ordinal = 0
        var quietSteps = 0
        for (caseIndex, testCase) in cases.enumerated() {
            for (stepIndex, step) in testCase.steps.enumerated() {
                if step.events.isEmpty {
                    if quietSteps % 16 == 3 {
                        mutations.append(appending(to: testCase, caseIndex: caseIndex, stepIndex: stepIndex))
                    }
                    quietSteps += 1
                }
                for eventIndex in step.events.indices {
                    mutations.append(
                        mutating(testCase, caseIndex: caseIndex, stepIndex: stepIndex, eventIndex: eventIndex, ordinal: ordinal))
                    ordinal += 1
                }
            }
        }
        return mutations
    }

    /// Whether a kind of mutation changes what the matchers compare for an event of `type`.
    public static func isEffective(_ kind: Kind, on type: EventType) -> Bool {
        switch kind {
        case .type, .data, .removal, .addition: true
        case .name: type != .value
        case .prevName: type != .value && type != .childRemoved
        }
    }

    // MARK: Making mutations

    /// The mutation of event `eventIndex` of step `stepIndex`, the `ordinal`-th event of the file.
    static func mutating(
        _ testCase: SyncPointSpecCase, caseIndex: Int, stepIndex: Int, eventIndex: Int, ordinal: Int
    ) -> SyncPointSpecMutation {
        let step = testCase.steps[stepIndex]
        let event = step.events[eventIndex]
        var events = step.events
        let kind: Kind
        let detail: String
        if ordinal % 41 == 20 {
            kind = .removal
            events.remove(at: eventIndex)
            detail = "removed \(event.rendered(base: .root))"
        } else if ordinal % 97 == 50 {
            kind = .addition
            events.append(event)
            detail = "appended a copy of \(event.rendered(base: .root))"
        } else {
            kind = effectiveKind(for: event.type, ordinal: ordinal)
            let mutated = Self.mutated(event, kind: kind, variant: ordinal / 4, siblings: step.events)
            events[eventIndex] = mutated
            detail = "\(event.rendered(base: .root)) became \(mutated.rendered(base: .root))"
        }
        var copy = testCase
        copy.steps[stepIndex].events = events
        return SyncPointSpecMutation(
            caseIndex: caseIndex, stepIndex: stepIndex, eventIndex: eventIndex, kind: kind, detail: detail, testCase: copy)
    }

    /// The mutation that appends a `value` event to step `stepIndex`, which expects none.
    static func appending(to testCase: SyncPointSpecCase, caseIndex: Int, stepIndex: Int) -> SyncPointSpecMutation {
        let step = testCase.steps[stepIndex]
        let extra = SyncPointSpecEvent(type: .value, path: step.action.path ?? .root, data: Node(.string("mutated")))
        var copy = testCase
        copy.steps[stepIndex].events.append(extra)
        return SyncPointSpecMutation(
            caseIndex: caseIndex, stepIndex: stepIndex, eventIndex: nil, kind: .addition,
            detail: "appended \(extra.rendered(base: .root)) to a \(step.type) step that expects no events", testCase: copy)
    }

    /// The kinds rotated through for in-place mutations.
    static let rotation: [Kind] = [.type, .name, .prevName, .data]

    /// The first kind from position `ordinal` of ``rotation`` that makes a difference for `type`.
    static func effectiveKind(for type: EventType, ordinal: Int) -> Kind {
        for offset in rotation.indices {
            let kind = rotation[(ordinal + offset) % rotation.count]
            if isEffective(kind, on: type) { return kind }
        }
        return .data
    }

    /// `event` changed by `kind`; `variant` picks among the ways of doing it.
    static func mutated(_ event: SyncPointSpecEvent, kind: Kind, variant: Int, siblings: [SyncPointSpecEvent]) -> SyncPointSpecEvent {
        var copy = event
        switch kind {
        case .type:
            let others = EventType.allCases.filter { $0 != event.type }
            copy.type = others[variant % others.count]
        case .name:
            copy.name = otherKey(than: event.name, among: siblings)
        case .prevName:
            if event.prevName != nil && variant % 2 == 0 {
                copy.prevName = nil
            } else {
                copy.prevName = otherKey(than: event.prevName, among: siblings)
            }
        case .data:
            copy.data = mutatedData(event.data, variant: variant)
        case .removal, .addition:
            break
        }
        return copy
    }

    /// A key other than `current`: another key named in the step when there is one, else a new one.
    static func otherKey(than current: String?, among siblings: [SyncPointSpecEvent]) -> String {
        let named = siblings.flatMap { [$0.name, $0.prevName] }.compactMap { $0 }
        let different = named.first { key in current.map { !key.utf8.elementsEqual($0.utf8) } ?? true }
        return different ?? (current ?? "") + "~mutated"
    }

    /// Data that differs from `data`: wrapped in a child (variant 0), with another root priority
    /// (1), or changed below the root: a leaf's value or the first child's priority (2).
    static func mutatedData(_ data: Node, variant: Int) -> Node {
        switch variant % 3 {
        case 0: wrapped(data)
        case 1: data.isEmpty ? wrapped(data) : data.withPriority(otherPriority(than: data.priority))
        default: altered(data)
        }
    }

    /// `{"mutated": data}`, or the string `"mutated"` for empty data.
    static func wrapped(_ data: Node) -> Node {
        data.isEmpty ? Node(.string("mutated")) : Node(children: [(ChildKey(unchecked: "mutated"), data)])
    }

    /// A priority other than `priority`: none → 7 → "mutated" → none.
    static func otherPriority(than priority: Priority?) -> Priority? {
        switch priority {
        case nil: Priority.number(7)
        case .number?: Priority.string("mutated")
        case .string?, .deferred?: nil
        }
    }

    /// `data` changed below its priority: another leaf value, or the first child re-prioritised.
    static func altered(_ data: Node) -> Node {
        if data.isEmpty { return Node(.bool(true)) }
        if let value = data.leafValue { return Node(alteredLeaf(value), priority: data.priority) }
        guard let first = data.firstChild else { return wrapped(data) }
        return data.updatingChild(first.key, first.node.withPriority(otherPriority(than: first.node.priority)))
    }

    /// A leaf value other than `value`.
    static func alteredLeaf(_ value: LeafValue) -> LeafValue {
        switch value {
        case .bool(let flag): .bool(!flag)
        case .int(let number): .int(number == .max ? number - 1 : number + 1)
        case .double: .string(value.description)
        case .string(let text): .string(text + "~")
        case .deferred: .string("mutated")
        }
    }
}

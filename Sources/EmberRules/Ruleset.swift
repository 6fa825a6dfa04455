import EmberCore

/// A rules document compiled: `.read`, `.write`, `.validate` and `.indexOn` at each location of
/// a tree that mirrors the data, with `$wildcard` keys that match any one key and bind it.
///
/// Firebase's semantics (`firebase-network.md` §7.2; targaryen `lib/database/ruleset.js`):
/// - a read of P is allowed when a `.read` at the root or on the way down to P is true (a grant
///   cannot be taken back below it, and rules below P are not consulted: rules are not filters);
/// - a write at P is allowed when a `.write` from the root down to P is true, and then every
///   `.validate` at P's ancestors, at P and at each location below P that exists in the new
///   data is true (`.validate` does not cascade and is not run where the new data is null);
/// - an error while evaluating a rule makes it false.
///
/// With no rules loaded the database is open (``open``: `.read` and `.write` true at the root).
public struct Ruleset: Sendable {
    /// The rules of one location. A class, so that walking the tree copies references, not
    /// rules; immutable (built from ``Contents`` while the document compiles), so reading it
    /// needs no exclusivity checks.
    final class Level: Sendable {
        /// A level while it is built.
        struct Contents {
            var read: Rule?
            var write: Rule?
            var validate: Rule?
            var indexes: [Index] = []
            var named: [ChildKey: Level] = [:]
            var wildcardName: String?
            var wildcard: Level?
        }

        let read: Rule?
        let write: Rule?
        let validate: Rule?
        let indexes: [Index]
        let named: [ChildKey: Level]
        /// `named` as a list when it is short (most levels name a few children): looked through
        /// in turn rather than hashed.
        private let fewNamed: [(key: ChildKey, value: Level)]?
        /// The wildcard's name with its `$`.
        let wildcardName: String?
        /// The wildcard's rules.
        let wildcard: Level?
        /// Whether a `.write` at a level below this one may hold (is not the constant `false`).
        let mayGrantBelow: Bool

        init(_ contents: Contents) {
            read = contents.read
            write = contents.write
            validate = contents.validate
            indexes = contents.indexes
            named = contents.named
            wildcardName = contents.wildcardName
            wildcard = contents.wildcard
            fewNamed = contents.named.count <= 8 ? Array(contents.named) : nil
            func mayGrant(_ level: Level) -> Bool { (level.write.map { !$0.isAlwaysFalse } ?? false) || level.mayGrantBelow }
            mayGrantBelow = contents.named.values.contains(where: mayGrant) || (contents.wildcard.map(mayGrant) ?? false)
        }

        /// The rules for the child `key`: named first, else the wildcard (and the name it binds).
        /// - Complexity: O(1) expected (skipped when the level has no named children).
        func child(_ key: ChildKey) -> (level: Level, capture: String?)? {
            if !named.isEmpty {
                // Most levels name a few children: compared in turn, not hashed.
                if let few = fewNamed {
                    for (name, level) in few where name == key { return (level, nil) }
                } else if let level = named[key] {
                    return (level, nil)
                }
            }
            if let wildcard, let wildcardName { return (wildcard, wildcardName) }
            return nil
        }
    }

    /// A rule of the document, for listings (`rules coverage`).
    public struct Entry: Sendable {
        /// Its place in the rules tree (`/users/$uid`).
        public let rulePath: String
        public let kind: RuleKind
        public let source: String
    }

    let root: Level
    /// The document's text, as loaded (`nil`: the open rules).
    public let source: String?
    /// Every `.read`, `.write` and `.validate` rule, in document order (``Rule/id`` indexes it).
    public let entries: [Entry]

    /// No rules loaded: everyone may read and write everything (the emulator's default).
    public static let open: Ruleset = {
        var level = Level.Contents()
        level.read = Rule(constant: true, kind: .read)
        level.write = Rule(constant: true, kind: .write)
        level.read?.id = 0
        level.write?.id = 1
        return Ruleset(
            root: Level(level), source: nil,
            entries: [Entry(rulePath: "/", kind: .read, source: "true"), Entry(rulePath: "/", kind: .write, source: "true")])
    }()

    private init(root: Level, source: String?, entries: [Entry]) {
        self.root = root
        self.source = source
        self.entries = entries
    }

    /// Whether these are the open rules (none loaded).
    public var isOpen: Bool { source == nil }

    /// Compiles a rules document: `{"rules": {...}}`, JSON with `//` and `/* */` comments.
    /// - Throws: ``RulesError`` naming `line:column` and the rule's place: not JSON, not one
    ///   `rules` object, an unknown `.`-key, a rule that is neither a boolean nor an expression,
    ///   an expression that does not compile, a bad `.indexOn`, two wildcards at one location
    ///   or one reused below.
    public init(text: String) throws(RulesError) {
        let document: RulesNode
        do {
            document = try RulesDocument.parse(text)
        } catch {
            throw RulesError(error.reason, line: error.position.line, column: error.position.column, place: "")
        }
        guard case .object(let members, let position) = document else {
            throw Self.error("a rules document is an object: {\"rules\": {...}}", at: document.position, place: [])
        }
        guard members.count == 1, members[0].key == "rules" else {
            throw Self.error(
                "a rules document has exactly one key, \"rules\"" + (members.map { " (found \"\($0.key)\")" }.first ?? ""),
                at: position, place: [])
        }
        var entries: [Entry] = []
        root = try Self.level(members[0].value, place: ["rules"], captures: [], entries: &entries)
        source = text
        self.entries = entries
    }

    private static func error(_ reason: String, at position: RulesPosition, place: [String]) -> RulesError {
        RulesError(reason, line: position.line, column: position.column, place: place.joined(separator: "/"))
    }

    private static func level(_ value: RulesNode, place: [String], captures: [String], entries: inout [Entry]) throws(RulesError) -> Level {
        guard case .object(let members, _) = value else {
            throw error("the rules of a location are an object, not \(value.kind)", at: value.position, place: place)
        }
        var level = Level.Contents()
        for member in members {
            let (key, child) = (member.key, member.value)
            let here = place + [key]
            switch key {
            case ".read", ".write", ".validate":
                let kind = RuleKind(rawValue: key)!
                var rule: Rule
                switch child {
                case .boolean(let constant, _):
                    rule = Rule(constant: constant, kind: kind)
                case .string(let source, let position):
                    do {
                        rule = try Rule(source, kind: kind, captures: Set(captures))
                    } catch {
                        // The expression starts one character after its opening quote (exact
                        // for expressions without escapes).
                        throw Self.error(error.reason, at: position.advanced(by: 1 + error.offset), place: here)
                    }
                default:
                    throw error("\(key) is true, false or an expression in a string, not \(child.kind)", at: child.position, place: here)
                }
                rule.id = entries.count
                entries.append(Entry(rulePath: spell(Array(place.dropFirst())), kind: kind, source: rule.source))
                switch kind {
                case .read: level.read = rule
                case .write: level.write = rule
                case .validate: level.validate = rule
                }
            case ".indexOn":
                level.indexes = try indexes(child, place: here)
            default:
                if key.hasPrefix(".") {
                    throw error("unknown rule \(key) (a location has .read, .write, .validate and .indexOn)", at: child.position, place: here)
                }
                if key.hasPrefix("$") {
                    if let problem = ChildKey.problem(with: String(key.dropFirst())) {
                        throw error("\"\(key)\" is not a valid wildcard: \(problem)", at: child.position, place: here)
                    }
                    if let other = level.wildcardName, other != key {
                        throw error("two wildcards, \(other) and \(key); a location has at most one", at: child.position, place: here)
                    }
                    if captures.contains(key) {
                        throw error("the wildcard \(key) is already used above", at: child.position, place: here)
                    }
                    level.wildcardName = key
                    level.wildcard = try Self.level(child, place: here, captures: captures + [key], entries: &entries)
                } else {
                    let childKey: ChildKey
                    do {
                        childKey = try ChildKey(validating: key)
                    } catch {
                        throw Self.error("\"\(key)\" is not a valid key: \(error.message)", at: child.position, place: here)
                    }
                    level.named[childKey] = try Self.level(child, place: here, captures: captures, entries: &entries)
                }
            }
        }
        return Level(level)
    }

    private static func indexes(_ value: RulesNode, place: [String]) throws(RulesError) -> [Index] {
        let names: [(String, RulesPosition)]
        switch value {
        case .string(let name, let position): names = [(name, position)]
        case .array(let elements, _):
            var collected: [(String, RulesPosition)] = []
            for element in elements {
                guard case .string(let name, let position) = element else {
                    throw error(".indexOn lists strings, not \(element.kind)", at: element.position, place: place)
                }
                collected.append((name, position))
            }
            names = collected
        default:
            throw error(".indexOn is a child path, \".value\", or a list of them, not \(value.kind)", at: value.position, place: place)
        }
        var indexes: [Index] = []
        for (name, position) in names {
            switch name {
            case ".value": if !indexes.contains(.value) { indexes.append(.value) }
            case ".key", ".priority": continue
            default:
                let path: Path
                do {
                    path = try Path(validating: name)
                } catch {
                    throw Self.error("\"\(name)\" is not a child path to index: \(error.message)", at: position, place: place)
                }
                guard !path.isEmpty else { throw Self.error(".indexOn names a child path, not \"\"", at: position, place: place) }
                if !indexes.contains(.child(path)) { indexes.append(.child(path)) }
            }
        }
        return indexes
    }

    // MARK: Walking the rules

    /// A location on the way down to a path, and the rules there.
    private struct Stop {
        let level: Level
        /// The location; on the way down, made only where the level has rules (`.root`
        /// stands in elsewhere: nothing reads it).
        let location: Path
        let captures: RuleCaptures
    }

    /// A rule's outcome at `stop`, as a step of a decision (its place in the rules tree from the
    /// document's list of rules).
    private func step(_ outcome: RuleOutcome, at stop: Stop) -> AccessDecision.Step {
        let id = outcome.rule.id
        let rulePath = entries.indices.contains(id) ? entries[id].rulePath : "?"
        return AccessDecision.Step(path: stop.location, rulePath: rulePath, captures: stop.captures, outcome: outcome)
    }

    /// The locations from the root down to `path` that have rules, in order: all of them, or
    /// fewer when the rules tree ends above `path`.
    /// - Complexity: O(depth of `path`).
    private func stops(to path: Path) -> [Stop] {
        var stops = [Stop(level: root, location: .root, captures: [:])]
        stops.reserveCapacity(path.count + 1)
        for (depth, key) in path.keys.enumerated() {
            let last = stops[stops.count - 1]
            guard let next = last.level.child(key) else { break }
            var captures = last.captures
            if let capture = next.capture { captures[capture] = key.name }
            // A location is made only where a rule may need it (the last is the path itself).
            let level = next.level
            let location =
                depth + 1 == path.count ? path
                : level.read != nil || level.write != nil || level.validate != nil ? Path(keys: Array(path.keys[...depth])) : .root
            stops.append(Stop(level: next.level, location: location, captures: captures))
        }
        return stops
    }

    // MARK: Indexes

    /// The indexes declared with `.indexOn` for the children of the location at `path`.
    /// - Complexity: O(depth of `path`).
    public func indexes(at path: Path) -> [Index] {
        let stops = stops(to: path)
        return stops.count == path.count + 1 ? stops[stops.count - 1].level.indexes : []
    }

    /// The value and child orders declared with `.indexOn` at locations named without a
    /// wildcard (`/users`, not `/rooms/$room/messages`), each with its location: the indexes
    /// that can be built before any query asks for them.
    /// - Complexity: O(l) for the l named levels of the rules.
    public var namedIndexes: [(location: Path, order: Index)] {
        var found: [(location: Path, order: Index)] = []
        func walk(_ level: Level, at path: Path) {
            for order in level.indexes {
                switch order {
                case .value, .child: found.append((path, order))
                case .key, .priority: continue
                }
            }
            for (key, child) in level.named { walk(child, at: path.child(key)) }
        }
        walk(root, at: .root)
        return found
    }

    // MARK: Decisions

    /// Whether `auth` may read `path` (with `query`, for a query), against the data `root`.
    /// - Parameter tracing: record each rule's sub-expressions (for `explain`).
    /// - Complexity: O(depth of `path`) rules evaluated at most.
    public func read(
        _ path: Path, auth: JSONValue?, now: Int64, root data: Node, query: RuleQuery = RuleQuery(), tracing: Bool = false
    ) -> AccessDecision {
        var reads = RuleReads()
        return read(path, auth: auth, now: now, data: .tree(data), query: query, tracing: tracing, reads: &reads)
    }

    /// Whether `auth` may write at `path`, the whole tree going from `data` to `newData`.
    /// - Complexity: as ``decide(_:tracing:reads:)`` for one path.
    public func write(
        _ path: Path, auth: JSONValue?, now: Int64, root data: Node, newRoot newData: Node, tracing: Bool = false
    ) -> AccessDecision {
        var reads = RuleReads()
        return write(path, auth: auth, now: now, data: .tree(data), newData: .tree(newData), tracing: tracing, reads: &reads)
    }

    private func read(
        _ path: Path, auth: JSONValue?, now: Int64, data: RuleData, query: RuleQuery, tracing: Bool, reads: inout RuleReads
    ) -> AccessDecision {
        var steps: [AccessDecision.Step] = []
        for stop in stops(to: path) {
            guard let rule = stop.level.read else { continue }
            let context = RuleContext(auth: auth, now: now, data: data, path: stop.location, captures: stop.captures, query: query)
            let outcome = rule.evaluate(context, tracing: tracing, reads: &reads)
            steps.append(step(outcome, at: stop))
            if outcome.allowed { return AccessDecision(operation: .read(path), steps: steps, ending: .granted(step: steps.count - 1)) }
        }
        return AccessDecision(operation: .read(path), steps: steps, ending: .noGrant)
    }

    /// `.write` from the root down to `path`, then `.validate` at and above `path` and wherever
    /// the new data exists below it.
    private func write(
        _ path: Path, auth: JSONValue?, now: Int64, data: RuleData, newData: RuleData, tracing: Bool, reads: inout RuleReads
    ) -> AccessDecision {
        var steps: [AccessDecision.Step] = []
        let stops = stops(to: path)
        var granted: Int?
        for stop in stops {
            guard let rule = stop.level.write else { continue }
            let context = RuleContext(auth: auth, now: now, data: data, newData: newData, path: stop.location, captures: stop.captures)
            let outcome = rule.evaluate(context, tracing: tracing, reads: &reads)
            steps.append(step(outcome, at: stop))
            if outcome.allowed {
                granted = steps.count - 1
                break
            }
        }
        guard let granted else { return AccessDecision(operation: .write(path), steps: steps, ending: .noGrant) }
        // `.validate` on the way down, where the new data exists, then below the written
        // location, wherever the new data exists (read once, at the written location).
        var validations: [Stop] = []
        for stop in stops where stop.level.validate != nil {
            let node = newData.node(at: stop.location)
            reads.record(node, at: stop.location, of: .after)
            if !node.isEmpty { validations.append(stop) }
        }
        if stops.count == path.count + 1, let last = stops.last, !last.level.named.isEmpty || last.level.wildcard != nil {
            let node = newData.node(at: path)
            reads.record(node, at: path, of: .after)
            collectValidations(below: last, node: node, into: &validations)
        }
        for stop in validations {
            guard let rule = stop.level.validate else { continue }
            let context = RuleContext(auth: auth, now: now, data: data, newData: newData, path: stop.location, captures: stop.captures)
            let outcome = rule.evaluate(context, tracing: tracing, reads: &reads)
            steps.append(step(outcome, at: stop))
            if !outcome.allowed { return AccessDecision(operation: .write(path), steps: steps, ending: .invalid(step: steps.count - 1)) }
        }
        return AccessDecision(operation: .write(path), steps: steps, ending: .granted(step: granted))
    }

    /// The decisions a request needs: one for a read; one per written path for a write, all
    /// against the same new data, ending at the first denial (a multi-path update is allowed
    /// only as a whole).
    /// - Complexity: as ``decide(_:tracing:reads:)``.
    public func decide(_ request: RuleRequest, tracing: Bool = false) -> [AccessDecision] {
        var reads = RuleReads()
        return decide(request, tracing: tracing, reads: &reads)
    }

    /// The decisions a request needs, adding every location whose data the rules read to
    /// `reads` (``RuleRequest/keeping(_:)`` keeps only those).
    /// - Parameter tracing: record each rule's sub-expressions (for `explain`).
    /// - Complexity: a read evaluates O(depth of its path) rules at most; a write, for each
    ///   path, O(depth) `.write` rules, plus the `.validate` rules of the new data below the path
    ///   (only where the rules tree has rules).
    public func decide(_ request: RuleRequest, tracing: Bool = false, reads: inout RuleReads) -> [AccessDecision] {
        switch request.operation {
        case .read(let path, let query):
            return [read(path, auth: request.auth, now: request.now, data: request.root, query: query, tracing: tracing, reads: &reads)]
        case .write(let paths):
            var decisions: [AccessDecision] = []
            for path in paths {
                let decision = write(
                    path, auth: request.auth, now: request.now, data: request.root, newData: request.newRoot, tracing: tracing, reads: &reads)
                decisions.append(decision)
                if !decision.allowed { break }
            }
            return decisions
        }
    }

    /// The locations below `stop` whose rules apply to the new data there (`node`): named
    /// children and the wildcard's matches, where the new data has them.
    private func collectValidations(below stop: Stop, node: Node, into stops: inout [Stop]) {
        guard !node.isLeaf else { return }
        let level = stop.level
        for (key, child) in level.named {
            let childNode = node.child(key)
            guard !childNode.isEmpty else { continue }
            let next = Stop(level: child, location: stop.location.child(key), captures: stop.captures)
            stops.append(next)
            collectValidations(below: next, node: childNode, into: &stops)
        }
        if let wildcard = level.wildcard, let name = level.wildcardName {
            for child in node.children where level.named[child.key] == nil {
                var captures = stop.captures
                captures[name] = child.key.name
                let next = Stop(level: wildcard, location: stop.location.child(child.key), captures: captures)
                stops.append(next)
                collectValidations(below: next, node: child.node, into: &stops)
            }
        }
    }

    private static func spell(_ rulePath: [String]) -> String { "/" + rulePath.joined(separator: "/") }
}

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
    /// The rules of one location.
    struct Level: Sendable {
        var read: Rule?
        var write: Rule?
        var validate: Rule?
        var indexes: [Index] = []
        var named: [ChildKey: Level] = [:]
        /// The wildcard's name with its `$`.
        var wildcardName: String?
        /// The wildcard's rules: none or one (a struct cannot hold an optional of itself).
        var wildcardLevels: [Level] = []

        var wildcard: Level? { wildcardLevels.first }

        /// The rules for the child `key`: named first, else the wildcard (and the name it binds).
        func child(_ key: ChildKey) -> (level: Level, capture: String?)? {
            if let named = named[key] { return (named, nil) }
            if let wildcard, let wildcardName { return (wildcard, wildcardName) }
            return nil
        }
    }

    let root: Level
    /// The document's text, as loaded (`nil`: the open rules).
    public let source: String?

    /// No rules loaded: everyone may read and write everything (the emulator's default).
    public static let open: Ruleset = {
        var level = Level()
        level.read = Rule(constant: true, kind: .read)
        level.write = Rule(constant: true, kind: .write)
        return Ruleset(root: level, source: nil)
    }()

    private init(root: Level, source: String?) {
        self.root = root
        self.source = source
    }

    /// Whether these are the open rules (none loaded).
    public var isOpen: Bool { source == nil }

    /// Compiles a rules document: `{"rules": {...}}`, JSON with `//` and `/* */` comments.
    /// - Throws: ``RulesError`` naming `line:column` and the rule's place: not JSON, not one
    ///   `rules` object, an unknown `.`-key, a rule that is neither a boolean nor an expression,
    ///   an expression that does not compile, a bad `.indexOn`, two wildcards at one location
    ///   or one reused below.
    public init(text: String) throws(RulesError) {
        let document: RulesDocument.Value
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
        root = try Self.level(members[0].value, place: ["rules"], captures: [])
        source = text
    }

    private static func error(_ reason: String, at position: RulesDocument.Position, place: [String]) -> RulesError {
        RulesError(reason, line: position.line, column: position.column, place: place.joined(separator: "/"))
    }

    private static func level(_ value: RulesDocument.Value, place: [String], captures: [String]) throws(RulesError) -> Level {
        guard case .object(let members, _) = value else {
            throw error("the rules of a location are an object, not \(value.kind)", at: value.position, place: place)
        }
        var level = Level()
        for (key, child) in members {
            let here = place + [key]
            switch key {
            case ".read", ".write", ".validate":
                let kind = RuleKind(rawValue: key)!
                let rule: Rule
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
                    level.wildcardLevels = [try Self.level(child, place: here, captures: captures + [key])]
                } else {
                    let childKey: ChildKey
                    do {
                        childKey = try ChildKey(validating: key)
                    } catch {
                        throw Self.error("\"\(key)\" is not a valid key: \(error.message)", at: child.position, place: here)
                    }
                    level.named[childKey] = try Self.level(child, place: here, captures: captures)
                }
            }
        }
        return level
    }

    private static func indexes(_ value: RulesDocument.Value, place: [String]) throws(RulesError) -> [Index] {
        let names: [(String, RulesDocument.Position)]
        switch value {
        case .string(let name, let position): names = [(name, position)]
        case .array(let elements, _):
            var collected: [(String, RulesDocument.Position)] = []
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
            case ".value": indexes.append(.value)
            case ".key", ".priority": continue
            default:
                let path: Path
                do {
                    path = try Path(validating: name)
                } catch {
                    throw Self.error("\"\(name)\" is not a child path to index: \(error.message)", at: position, place: place)
                }
                guard !path.isEmpty else { throw Self.error(".indexOn names a child path, not \"\"", at: position, place: place) }
                indexes.append(.child(path))
            }
        }
        return indexes
    }

    // MARK: Indexes

    /// The indexes declared with `.indexOn` for the children of the location at `path`.
    /// - Complexity: O(depth of `path`).
    public func indexes(at path: Path) -> [Index] {
        var level = root
        for key in path.keys {
            guard let next = level.child(key) else { return [] }
            level = next.level
        }
        return level.indexes
    }

    // MARK: Decisions

    /// Whether `auth` may read `path` (with `query`, for a query), against the data `root`.
    /// - Parameter tracing: record each rule's sub-expressions (for `explain`).
    /// - Complexity: O(depth of `path`) rules evaluated at most.
    public func read(
        _ path: Path, auth: JSONValue?, now: Int64, root data: Node, query: RuleQuery = RuleQuery(), tracing: Bool = false
    ) -> AccessDecision {
        var steps: [AccessDecision.Step] = []
        var level: Level? = root
        var captures: [String: String] = [:]
        var location = Path.root
        var rulePath: [String] = []
        var depth = 0
        while let current = level {
            if let rule = current.read {
                let context = RuleContext(auth: auth, now: now, root: data, path: location, captures: captures, query: query)
                let outcome = rule.evaluate(context, tracing: tracing)
                steps.append(.init(path: location, rulePath: Self.spell(rulePath), outcome: outcome))
                if outcome.allowed {
                    return AccessDecision(
                        operation: .read(path), allowed: true, steps: steps,
                        reason: "\(Self.spell(rulePath)) .read \(Self.quote(rule.source)) is true")
                }
            }
            guard depth < path.count else { break }
            let key = path.keys[depth]
            guard let next = current.child(key) else { break }
            if let capture = next.capture { captures[capture] = key.name }
            rulePath.append(next.capture ?? key.name)
            location = location.child(key)
            level = next.level
            depth += 1
        }
        return AccessDecision(operation: .read(path), allowed: false, steps: steps, reason: Self.noGrant("read", steps, path))
    }

    /// Whether `auth` may write at `path`, the whole tree going from `data` to `newData`:
    /// `.write` from the root down to `path`, then `.validate` at and above `path` and
    /// wherever the new data exists below it.
    /// - Complexity: O(depth of `path`) `.write` rules, plus the `.validate` rules of the new
    ///   data below `path` (only where the rules tree has rules).
    public func write(
        _ path: Path, auth: JSONValue?, now: Int64, root data: Node, newRoot newData: Node, tracing: Bool = false
    ) -> AccessDecision {
        var steps: [AccessDecision.Step] = []
        var level: Level? = root
        var captures: [String: String] = [:]
        var location = Path.root
        var rulePath: [String] = []
        var granted: String?
        var validations: [(Rule, Path, [String: String], String)] = []
        var depth = 0
        while let current = level {
            if granted == nil, let rule = current.write {
                let context = RuleContext(auth: auth, now: now, root: data, newRoot: newData, path: location, captures: captures)
                let outcome = rule.evaluate(context, tracing: tracing)
                steps.append(.init(path: location, rulePath: Self.spell(rulePath), outcome: outcome))
                if outcome.allowed { granted = "\(Self.spell(rulePath)) .write \(Self.quote(rule.source)) is true" }
            }
            if let rule = current.validate { validations.append((rule, location, captures, Self.spell(rulePath))) }
            guard depth < path.count else { break }
            let key = path.keys[depth]
            guard let next = current.child(key) else {
                level = nil
                break
            }
            if let capture = next.capture { captures[capture] = key.name }
            rulePath.append(next.capture ?? key.name)
            location = location.child(key)
            level = next.level
            depth += 1
        }
        guard let granted else {
            return AccessDecision(operation: .write(path), allowed: false, steps: steps, reason: Self.noGrant("write", steps, path))
        }
        // `.validate` below the written location, wherever the new data exists.
        if let level, depth == path.count {
            collectValidations(below: level, at: location, captures: captures, rulePath: rulePath, newData: newData, into: &validations)
        }
        for (rule, at, ruleCaptures, spelled) in validations where !newData.child(at: at).isEmpty {
            let context = RuleContext(auth: auth, now: now, root: data, newRoot: newData, path: at, captures: ruleCaptures)
            let outcome = rule.evaluate(context, tracing: tracing)
            steps.append(.init(path: at, rulePath: spelled, outcome: outcome))
            if !outcome.allowed {
                return AccessDecision(
                    operation: .write(path), allowed: false, steps: steps,
                    reason: "\(spelled) .validate \(Self.quote(rule.source)) at \(at) is \(outcome.verdict)")
            }
        }
        return AccessDecision(operation: .write(path), allowed: true, steps: steps, reason: granted)
    }

    /// The `.validate` rules below `level` (at `location`) that apply to the new data there.
    private func collectValidations(
        below level: Level, at location: Path, captures: [String: String], rulePath: [String], newData: Node,
        into validations: inout [(Rule, Path, [String: String], String)]
    ) {
        let node = newData.child(at: location)
        guard !node.isLeaf else { return }
        for (key, child) in level.named where !node.child(key).isEmpty {
            let path = location.child(key)
            if let rule = child.validate { validations.append((rule, path, captures, Self.spell(rulePath + [key.name]))) }
            collectValidations(below: child, at: path, captures: captures, rulePath: rulePath + [key.name], newData: newData, into: &validations)
        }
        if let wildcard = level.wildcard, let name = level.wildcardName {
            for child in node.children where level.named[child.key] == nil {
                var bound = captures
                bound[name] = child.key.name
                let path = location.child(child.key)
                if let rule = wildcard.validate { validations.append((rule, path, bound, Self.spell(rulePath + [name]))) }
                collectValidations(below: wildcard, at: path, captures: bound, rulePath: rulePath + [name], newData: newData, into: &validations)
            }
        }
    }

    private static func spell(_ rulePath: [String]) -> String { "/" + rulePath.joined(separator: "/") }

    private static func quote(_ source: String) -> String { JSONValue.string(source).serialized() }

    private static func noGrant(_ verb: String, _ steps: [AccessDecision.Step], _ path: Path) -> String {
        let denials = steps.map { "\($0.rulePath) .\(verb) \(quote($0.outcome.rule.source)) is \($0.outcome.verdict)" }
        return denials.isEmpty ? "no rule grants \(verb) on the way to \(path)" : denials.joined(separator: "; ") + "; no rule grants \(verb)"
    }
}

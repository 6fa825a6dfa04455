import EmberCore

/// The check the server makes on every operation: the same rules, in the same order, with the
/// same outcome as ``Ruleset/decide(_:tracing:reads:)``, but building no ``AccessDecision``
/// (no steps, no outcomes, no locations where no rule is): a guarded write costs a fraction of
/// what explaining it does. `explain` and `rules trace` evaluate the kept request again with
/// ``Ruleset/decide(_:tracing:reads:)``.
extension Ruleset {
    /// Checks `request`: `nil` when it is allowed, else the path refused (for a multi-path
    /// write, the first path refused). Every rule evaluated is counted in `coverage`, and every
    /// location whose data the rules read is added to `reads`: what ``decide(_:tracing:reads:)``
    /// reads, except the new data of the `.validate` rules after one that failed (enough to
    /// explain the check from ``RuleRequest/keeping(_:)``).
    /// - Complexity: as ``decide(_:tracing:reads:)``, with one evaluator per
    ///   check instead of one per rule.
    public func check(_ request: RuleRequest, reads: inout RuleReads, coverage: inout RuleCoverage) -> Path? {
        // The reads go into the evaluator and come back by exchange: the evaluator is never
        // copied (reading `evaluator.reads` from a `defer` copied it whole, then destroyed
        // both).
        var refused: Path?
        switch request.operation {
        case .read(let path, let query):
            let evaluator = RuleEvaluator(auth: request.auth, now: request.now, data: request.root, newData: nil, query: query)
            swap(&reads, &evaluator.reads)
            if !mayRead(path, evaluator, coverage: &coverage) { refused = path }
            swap(&reads, &evaluator.reads)
        case .write(let paths):
            let evaluator = RuleEvaluator(auth: request.auth, now: request.now, data: request.root, newData: request.newRoot)
            swap(&reads, &evaluator.reads)
            for path in paths where !mayWrite(path, evaluator, coverage: &coverage) {
                refused = path
                break
            }
            swap(&reads, &evaluator.reads)
        }
        return refused
    }

    /// Whether a `.write` rule from the root down to `path` grants `auth` a write there, when
    /// none of them reads `newData`: then no new data can change the answer, and a write the
    /// rules refuse is known refused before anything of it is read, resolved or laid over the
    /// tree (a refused merge of a million paths cost its namespace seconds and hundreds of MB).
    /// - Returns: `nil` when a `.write` rule on the way reads `newData` (the whole check
    ///   decides), else whether one holds. Nothing is counted in the coverage: the check that
    ///   follows counts.
    /// - Complexity: O(depth of `path`) rule evaluations.
    public func grantsWrite(at path: Path, auth: JSONValue?, now: Int64, data: RuleData) -> Bool? {
        var level = root
        var captures = RuleCaptures()
        var depth = 0
        var rules: [(rule: Rule, depth: Int, captures: RuleCaptures)] = []
        while true {
            if let rule = level.write {
                if rule.readsNewData { return nil }
                rules.append((rule, depth, captures))
            }
            guard depth < path.count, let next = level.child(path.keys[depth]) else { break }
            if let capture = next.capture { captures.bind(capture, to: path.keys[depth].name) }
            level = next.level
            depth += 1
        }
        let evaluator = RuleEvaluator(auth: auth, now: now, data: data, newData: nil)
        var coverage = RuleCoverage(ruleCount: 0)
        for (rule, depth, captures) in rules {
            evaluator.move(to: Self.location(path, depth: depth), captures: captures)
            if rule.holds(in: evaluator, coverage: &coverage) { return true }
        }
        return false
    }

    /// Whether the rules refuse `auth` every write at and below `path`, whatever is written: no
    /// `.write` on the way down grants it (``grantsWrite(at:auth:now:data:)`` is `false`) and
    /// every `.write` below `path` is the constant `false` (or there is none). A REST write so
    /// refused is answered before its body is parsed.
    /// - Complexity: O(depth of `path`) rule evaluations.
    public func refusesEveryWrite(atOrBelow path: Path, auth: JSONValue?, now: Int64, data: RuleData) -> Bool {
        guard grantsWrite(at: path, auth: auth, now: now, data: data) == false else { return false }
        var level = root
        for key in path.keys {
            guard let next = level.child(key) else { return true }
            level = next.level
        }
        return !level.mayGrantBelow
    }

    /// Whether a write at `path` meets a `.validate`: on the way down to it, at it, or below
    /// it (where new data could exist).
    /// - Complexity: O(depth of `path`) plus the rules below it.
    public func validates(writesAt path: Path) -> Bool {
        var level = root
        if level.validate != nil { return true }
        for key in path.keys {
            guard let next = level.child(key) else { return false }
            level = next.level
            if level.validate != nil { return true }
        }
        return Self.validatesBelow(level)
    }

    private static func validatesBelow(_ level: Level) -> Bool {
        func validates(_ child: Level) -> Bool { child.validate != nil || validatesBelow(child) }
        return level.named.values.contains(where: validates) || (level.wildcard.map(validates) ?? false)
    }

    /// The location of a rule `depth` keys down `path`.
    private static func location(_ path: Path, depth: Int) -> Path {
        depth == path.count ? path : Path(keys: Array(path.keys[..<depth]))
    }

    /// A `.read` from the root down to `path` is true.
    private func mayRead(_ path: Path, _ evaluator: RuleEvaluator, coverage: inout RuleCoverage) -> Bool {
        var level = root
        var captures = RuleCaptures()
        var depth = 0
        while true {
            if let rule = level.read {
                evaluator.move(to: Self.location(path, depth: depth), captures: captures)
                if rule.holds(in: evaluator, coverage: &coverage) { return true }
            }
            guard depth < path.count, let next = level.child(path.keys[depth]) else { return false }
            if let capture = next.capture { captures.bind(capture, to: path.keys[depth].name) }
            level = next.level
            depth += 1
        }
    }

    /// A `.write` from the root down to `path` is true, then every `.validate` on the way
    /// down where the new data exists, then every `.validate` below `path` where the new data
    /// exists (in the order ``decide(_:tracing:reads:)`` evaluates them).
    private func mayWrite(_ path: Path, _ evaluator: RuleEvaluator, coverage: inout RuleCoverage) -> Bool {
        var level = root
        var captures = RuleCaptures()
        var depth = 0
        var granted = false
        // The `.validate` rules on the way down, for after the walk: the first kept apart, so
        // that the common case (one, or none) allocates nothing.
        typealias Validation = (level: Level, depth: Int, captures: RuleCaptures)
        var firstValidation: Validation?
        var laterValidations: [Validation] = []
        while true {
            if !granted, let rule = level.write {
                evaluator.move(to: Self.location(path, depth: depth), captures: captures)
                granted = rule.holds(in: evaluator, coverage: &coverage)
            }
            if level.validate != nil {
                if firstValidation == nil { firstValidation = (level, depth, captures) } else { laterValidations.append((level, depth, captures)) }
            }
            guard depth < path.count, let next = level.child(path.keys[depth]) else { break }
            if let capture = next.capture { captures.bind(capture, to: path.keys[depth].name) }
            level = next.level
            depth += 1
        }
        guard granted, let newData = evaluator.newRoot else { return false }
        // `.validate` on the way down, where the new data exists, in order. (`decide` reads
        // every location's new data before it runs any; the outcome is the same, and what is
        // read here is still enough to explain the check.)
        func holds(_ validation: Validation) -> Bool {
            let location = Self.location(path, depth: validation.depth)
            let node = newData.node(at: location)
            evaluator.reads.record(node, at: location, of: .after)
            guard !node.isEmpty, let rule = validation.level.validate else { return true }
            evaluator.move(to: location, captures: validation.captures, newData: node)
            return rule.holds(in: evaluator, coverage: &coverage)
        }
        if let firstValidation, !holds(firstValidation) { return false }
        for validation in laterValidations where !holds(validation) { return false }
        guard depth == path.count, !level.named.isEmpty || level.wildcard != nil else { return true }
        let node = newData.node(at: path)
        evaluator.reads.record(node, at: path, of: .after)
        return validates(below: level, at: path, node: node, captures: captures, evaluator, coverage: &coverage)
    }

    /// Every `.validate` below `level` (at `path`) where the new data (`node`) exists is true:
    /// named children first, then the wildcard's matches, each before its own descendants.
    private func validates(
        below level: Level, at path: Path, node: Node, captures: RuleCaptures, _ evaluator: RuleEvaluator,
        coverage: inout RuleCoverage
    ) -> Bool {
        guard !node.isLeaf else { return true }
        for (key, child) in level.named {
            let childNode = node.child(key)
            guard !childNode.isEmpty else { continue }
            let location = path.child(key)
            if let rule = child.validate {
                evaluator.move(to: location, captures: captures)
                if !rule.holds(in: evaluator, coverage: &coverage) { return false }
            }
            guard validates(below: child, at: location, node: childNode, captures: captures, evaluator, coverage: &coverage)
            else { return false }
        }
        if let wildcard = level.wildcard, let name = level.wildcardName {
            for child in node.children where level.named[child.key] == nil {
                var below = captures
                below.bind(name, to: child.key.name)
                let location = path.child(child.key)
                if let rule = wildcard.validate {
                    evaluator.move(to: location, captures: below)
                    if !rule.holds(in: evaluator, coverage: &coverage) { return false }
                }
                guard validates(below: wildcard, at: location, node: child.node, captures: below, evaluator, coverage: &coverage)
                else { return false }
            }
        }
        return true
    }
}

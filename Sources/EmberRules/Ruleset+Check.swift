import EmberCore

/// The check the server makes on every operation: the same rules, in the same order, with the
/// same outcome as ``Ruleset/decide(_:tracing:reads:)``, but building no ``AccessDecision``
/// (no steps, no outcomes, no locations where no rule is): a guarded write costs a fraction of
/// what explaining it does. `explain` and `rules trace` evaluate the kept request again with
/// ``Ruleset/decide(_:tracing:reads:)``.
extension Ruleset {
    /// Checks `request`: `nil` when it is allowed, else the path refused (for a multi-path
    /// write, the first path refused). Every rule evaluated is counted in `coverage`, and every
    /// location whose data the rules read is added to `reads`, as
    /// ``decide(_:tracing:reads:)`` would.
    /// - Complexity: as ``decide(_:tracing:reads:)``, with one context per check instead of
    ///   one per rule.
    public func check(_ request: RuleRequest, reads: inout RuleReads, coverage: inout RuleCoverage) -> Path? {
        switch request.operation {
        case .read(let path, let query):
            let context = RuleContext(auth: request.auth, now: request.now, data: request.root, query: query)
            return mayRead(path, context, reads: &reads, coverage: &coverage) ? nil : path
        case .write(let paths):
            let context = RuleContext(auth: request.auth, now: request.now, data: request.root, newData: request.newRoot)
            for path in paths where !mayWrite(path, context, reads: &reads, coverage: &coverage) { return path }
            return nil
        }
    }

    /// The location of a rule `depth` keys down `path`.
    private static func location(_ path: Path, depth: Int) -> Path {
        depth == path.count ? path : Path(keys: Array(path.keys[..<depth]))
    }

    /// A `.read` from the root down to `path` is true.
    private func mayRead(_ path: Path, _ context: RuleContext, reads: inout RuleReads, coverage: inout RuleCoverage) -> Bool {
        var level = root
        var captures = RuleCaptures()
        var depth = 0
        while true {
            if let rule = level.read,
                rule.holds(context, at: Self.location(path, depth: depth), captures: captures, reads: &reads, coverage: &coverage)
            {
                return true
            }
            guard depth < path.count, let next = level.child(path.keys[depth]) else { return false }
            if let capture = next.capture { captures[capture] = path.keys[depth].name }
            level = next.level
            depth += 1
        }
    }

    /// A `.write` from the root down to `path` is true, then every `.validate` on the way
    /// down where the new data exists, then every `.validate` below `path` where the new data
    /// exists (in the order ``decide(_:tracing:reads:)`` evaluates them).
    private func mayWrite(_ path: Path, _ context: RuleContext, reads: inout RuleReads, coverage: inout RuleCoverage) -> Bool {
        var level = root
        var captures = RuleCaptures()
        var depth = 0
        var granted = false
        var validations: [(level: Level, depth: Int, captures: RuleCaptures)] = []
        while true {
            if !granted, let rule = level.write {
                granted = rule.holds(
                    context, at: Self.location(path, depth: depth), captures: captures, reads: &reads, coverage: &coverage)
            }
            if level.validate != nil { validations.append((level, depth, captures)) }
            guard depth < path.count, let next = level.child(path.keys[depth]) else { break }
            if let capture = next.capture { captures[capture] = path.keys[depth].name }
            level = next.level
            depth += 1
        }
        guard granted, let newData = context.newRoot else { return false }
        // Every location's new data is read before any `.validate` runs, as `decide` does.
        var valid: [(rule: Rule, location: Path, captures: RuleCaptures, node: Node)] = []
        for validation in validations {
            let location = Self.location(path, depth: validation.depth)
            let node = newData.node(at: location)
            reads.record(node, at: location, of: .after)
            if !node.isEmpty, let rule = validation.level.validate { valid.append((rule, location, validation.captures, node)) }
        }
        for validation in valid
        where !validation.rule.holds(
            context, at: validation.location, captures: validation.captures, newData: validation.node, reads: &reads, coverage: &coverage)
        {
            return false
        }
        guard depth == path.count, !level.named.isEmpty || level.wildcard != nil else { return true }
        let node = newData.node(at: path)
        reads.record(node, at: path, of: .after)
        return validates(below: level, at: path, node: node, captures: captures, context, reads: &reads, coverage: &coverage)
    }

    /// Every `.validate` below `level` (at `path`) where the new data (`node`) exists is true:
    /// named children first, then the wildcard's matches, each before its own descendants.
    private func validates(
        below level: Level, at path: Path, node: Node, captures: RuleCaptures, _ context: RuleContext, reads: inout RuleReads,
        coverage: inout RuleCoverage
    ) -> Bool {
        guard !node.isLeaf else { return true }
        for (key, child) in level.named {
            let childNode = node.child(key)
            guard !childNode.isEmpty else { continue }
            let location = path.child(key)
            if let rule = child.validate, !rule.holds(context, at: location, captures: captures, reads: &reads, coverage: &coverage) {
                return false
            }
            guard validates(below: child, at: location, node: childNode, captures: captures, context, reads: &reads, coverage: &coverage)
            else { return false }
        }
        if let wildcard = level.wildcard, let name = level.wildcardName {
            for child in node.children where level.named[child.key] == nil {
                var below = captures
                below[name] = child.key.name
                let location = path.child(child.key)
                if let rule = wildcard.validate, !rule.holds(context, at: location, captures: below, reads: &reads, coverage: &coverage) {
                    return false
                }
                guard validates(below: wildcard, at: location, node: child.node, captures: below, context, reads: &reads, coverage: &coverage)
                else { return false }
            }
        }
        return true
    }
}

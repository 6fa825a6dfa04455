import EmberCore
import EmberRules
import EmberStorage

/// The one place the server's security rules are applied: every read, write, listen,
/// onDisconnect registration, import and export the server considers for a connection is
/// decided here, and every check made is counted (``coverage``).
///
/// A value owned by ``ServerCore``. It reads data through the server's tree (a
/// ``RuleTreeReader``: a rule that reads `root.child(...)` loads what it reads) and reports a
/// read the store could not give rather than deciding on data it does not have.
struct ServerAuthorizer {
    /// The security rules in force: open (everyone may read and write) until rules are loaded.
    private(set) var rules: Ruleset
    /// How often each rule was evaluated, and how, since the rules were put in force.
    private(set) var coverage: RuleCoverage

    init(rules: Ruleset) {
        self.rules = rules
        coverage = RuleCoverage(ruleCount: rules.entries.count)
    }

    /// Puts `rules` in force; the coverage counts start again.
    mutating func replace(with rules: Ruleset) {
        self.rules = rules
        coverage = RuleCoverage(ruleCount: rules.entries.count)
    }

    /// Whether the rules are checked for `auth`: not with the open rules, nor for an
    /// administrator.
    func applies(to auth: ConnectionAuth) -> Bool { !rules.isOpen && auth != .admin }

    /// Checks `operation` by the connection `id`, acting as `auth`, at server time `now`, with
    /// `writes` laid over `tree` as `newData`.
    /// - Complexity: what the rules on the operation's paths cost, plus the data they read.
    mutating func authorize(
        _ operation: RuleRequest.Operation, as auth: ConnectionAuth, by id: ConnectionID, at now: Int64,
        writing writes: [RuleData.Write] = [], over tree: ServerTree
    ) -> Authorization {
        guard applies(to: auth) else { return .unchecked }
        // `newData` is the tree with the writes laid over it, not a copy of it; the check kept
        // for `explain` holds only the data the rules read, so the tree stays unshared and a
        // write changes it in place.
        let request = RuleRequest(
            operation, auth: auth.variable, now: now, data: .reading(tree),
            newData: writes.isEmpty ? nil : .overlay(reading: tree, writes))
        var reads = RuleReads()
        let refused = rules.check(request, reads: &reads, coverage: &coverage)
        if let failure = tree.takeFailure() { return .unreadable(failure.databaseError) }
        return .checked(RuleCheck(connection: id, ruleset: rules, request: request.keeping(reads), refused: refused))
    }

    /// Whether the rules grant `auth` a write at `path` whatever is written (`true`), refuse
    /// it whatever is written (`false`), or depend on the data written (`nil`)
    /// (``Ruleset/grantsWrite(at:auth:now:data:)``); always `true` where they do not apply.
    /// - Throws: the store's failure when the rules read data it could not give.
    func grantsWrite(at path: Path, as auth: ConnectionAuth, at now: Int64, over tree: ServerTree) throws(DatabaseError) -> Bool? {
        guard applies(to: auth) else { return true }
        let granted = rules.grantsWrite(at: path, auth: auth.variable, now: now, data: .reading(tree))
        if let failure = tree.takeFailure() { throw failure.databaseError }
        return granted
    }

    /// Whether the rules refuse `auth` every write at and below `path`, whatever is written
    /// (``Ruleset/refusesEveryWrite(atOrBelow:auth:now:data:)``): a request that can only be
    /// refused need not be read. A rule whose data could not be read decides nothing.
    func refusesEveryWrite(atOrBelow path: Path, as auth: ConnectionAuth, at now: Int64, over tree: ServerTree) -> Bool {
        guard applies(to: auth) else { return false }
        let refused = rules.refusesEveryWrite(atOrBelow: path, auth: auth.variable, now: now, data: .reading(tree))
        return tree.takeFailure() == nil && refused
    }

    /// Whether an import at `path` may be written straight into the store for `auth`: the
    /// rules grant the write whatever is written, and no `.validate` checks the location.
    func grantsImport(at path: Path, as auth: ConnectionAuth, at now: Int64, over tree: ServerTree) -> Bool {
        guard applies(to: auth) else { return true }
        let granted = try? grantsWrite(at: path, as: auth, at: now, over: tree)
        return granted == true && !rules.validates(writesAt: path)
    }

    /// Whether an export may be read straight from the store for `auth`: no rule can keep it
    /// from reading.
    func grantsExport(as auth: ConnectionAuth) -> Bool { !applies(to: auth) }
}

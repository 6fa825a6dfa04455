import EmberCore

/// The last rules check made for each connection's requests (what `explain` explains). The
/// connection checked most recently is held apart, so that its next checks replace its last
/// without a table update: a connection's guarded writes, one after another, each stored their
/// check by updating the connection's entry (hashing its id, and copying back the entry).
struct LastRuleChecks {
    private var recent: (id: ConnectionID, check: RuleCheck)?
    private var others: [ConnectionID: RuleCheck] = [:]

    /// Keeps `check` as the last of connection `id`.
    /// - Complexity: O(1); a table update only when the connection differs from the last one
    ///   checked.
    mutating func keep(_ check: RuleCheck, for id: ConnectionID) {
        if let recent, recent.id != id { others[recent.id] = recent.check }
        recent = (id, check)
    }

    /// The last check of connection `id`, if any.
    /// - Complexity: O(1).
    func check(of id: ConnectionID) -> RuleCheck? {
        if let recent, recent.id == id { return recent.check }
        return others[id]
    }

    /// Forgets the checks of connection `id` (it closed).
    /// - Complexity: O(1).
    mutating func forget(_ id: ConnectionID) {
        if recent?.id == id { recent = nil }
        others[id] = nil
    }
}

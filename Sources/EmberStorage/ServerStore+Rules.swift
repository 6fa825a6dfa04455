import GRDB

/// The security rules kept with the data: the text of the rules document in force, so that a
/// database directory opens with the rules it was given.
///
/// The table is made by the first save, not by a migration: a store written by an earlier
/// version still opens read-only (it simply has no rules).
extension ServerStore {
    /// The rules document saved last, or `nil` when none was (the rules are open).
    /// - Throws: ``StoreError`` when the file cannot be read.
    public func loadRules() throws(StoreError) -> String? {
        try queue.reading("read the rules", of: "the server's store", at: location) { db in
            guard try db.tableExists("settings") else { return nil }
            return try String.fetchOne(db, sql: "SELECT value FROM settings WHERE key = 'rules'")
        }
    }

    /// Saves the rules document `text` (`nil`: back to the open rules), durably, at once.
    /// - Throws: ``StoreError`` when the store is read-only or the write fails; the saved rules
    ///   are then as they were.
    public func saveRules(_ text: String?) throws(StoreError) {
        guard !isReadOnly else { throw StoreError("the server's store at \(location) is read-only: the rules cannot be saved") }
        try queue.save(text, forKey: "rules", in: "settings", creatingTable: true, "the rules", of: "the server's store", at: location)
    }
}

import EmberCore
import EmberStorage
import EmberWire

/// The server's memory of the keyed writes it has answered, exact and bounded: for each writer
/// (a client's session), the highest write number answered (its watermark) and the refusals at
/// or above the lowest number the client may still send again (its floor).
///
/// A client sends each writer's writes in increasing order on every connection, so a write
/// numbered at or below its writer's watermark was answered before: it gets that answer again
/// (`ok`, or its refusal) and is not applied twice, however many writes other clients made
/// meanwhile. When a client connects it says which of its writers it may still send writes of
/// (``ClientMessage/resume(requestID:client:writers:)``); the ledger forgets its other writers and
/// the refusals below each floor, so what is kept is bounded by what clients can still resend.
///
/// Each change is also returned as a ``LedgerChange`` for the server's store, committed with
/// the data the write changed.
struct WriteLedger {
    /// What is known of one writer.
    struct Writer: Hashable {
        /// The client the writer belongs to (``WriteLedger/client(of:)``), found once: every
        /// answer's change for the store names it.
        let client: String
        /// The highest write number answered.
        var watermark: Int64
        /// The refusals at or above the floor, by write number.
        var refusals: [Int64: DatabaseError]

        /// What is known of writer `name`.
        init(_ name: String, watermark: Int64 = 0, refusals: [Int64: DatabaseError] = [:]) {
            self.client = WriteLedger.client(of: name)
            self.watermark = watermark
            self.refusals = refusals
        }
    }

    /// The writers, by name.
    private(set) var writers: [String: Writer] = [:]

    /// The writer answered last and its place in ``writers``: a client's writes come one
    /// writer at a time, so its next write finds the writer by comparing names rather than
    /// hashing one (twice a write: its answer looked up, then recorded; about 700
    /// instructions, callgrind). Forgotten whenever the table is changed other than through
    /// this place (a writer added or removed may move the others), which keeps the place valid:
    /// an entry's value changed through its index leaves every index valid.
    private var recent: (name: String, index: Dictionary<String, Writer>.Index)?

    /// The place of writer `name` in ``writers``, if it is there.
    /// - Complexity: O(1) on average; O(n) in the name's length when it is the writer answered
    ///   last.
    private func place(of name: String) -> Dictionary<String, Writer>.Index? {
        if let recent, StringOrder.bytesEqual(recent.name, name) { return recent.index }
        return writers.index(forKey: name)
    }

    /// Moves `writer`'s watermark up to `sequence`; returns the writer's client when it moved.
    private static func advance(_ writer: inout Writer, to sequence: Int64) -> String? {
        guard sequence > writer.watermark else { return nil }
        writer.watermark = sequence
        return writer.client
    }

    /// The client a writer belongs to: its name up to the first `.`.
    /// - Complexity: O(n) in the length of the name (scanned as UTF-8 bytes: a scan by
    ///   `Character` cost thousands of instructions a write).
    static func client(of writer: String) -> String {
        guard let dot = writer.utf8.firstIndex(of: UInt8(ascii: ".")) else { return writer }
        return String(writer[..<dot])
    }

    /// The answer given to `key` before, or `nil` for a write not seen yet.
    /// - Complexity: O(1) on average.
    func answer(for key: WriteKey) -> AckStatus? {
        guard let index = place(of: key.writer) else { return nil }
        let writer = writers.values[index]
        guard key.sequence <= writer.watermark else { return nil }
        return writer.refusals.isEmpty ? .ok() : writer.refusals[key.sequence].map(AckStatus.failed) ?? .ok()
    }

    /// Records the answer to a new write.
    /// - Returns: the changes for the store.
    /// - Complexity: O(1) on average.
    mutating func record(_ status: AckStatus, for key: WriteKey) -> [LedgerChange] {
        var changes: [LedgerChange]? = []
        record(status, for: key, changes: &changes)
        return changes ?? []
    }

    /// Records the answer to a new write for a server without a store: no changes are made for
    /// one (an array and an action a write, 400 instructions, callgrind).
    /// - Complexity: O(1) on average.
    mutating func recordInMemory(_ status: AckStatus, for key: WriteKey) {
        var changes: [LedgerChange]? = nil
        record(status, for: key, changes: &changes)
    }

    /// Records the answer to a new write, appending the changes for the store to `changes`
    /// unless it is `nil`.
    private mutating func record(_ status: AckStatus, for key: WriteKey, changes: inout [LedgerChange]?) {
        // A writer is never added for a number that cannot move it.
        if key.sequence <= 0, case .ok = status { return }
        // In place, through the writer's place: a copy of the writer would copy its refusals
        // on every refused write (a contended transaction's datastale answers made each one
        // cost O(refusals)).
        let index: Dictionary<String, Writer>.Index
        if let found = place(of: key.writer) {
            index = found
        } else {
            writers[key.writer] = Writer(key.writer)
            recent = nil
            index = writers.index(forKey: key.writer)!
        }
        if key.sequence > 0, let client = Self.advance(&writers.values[index], to: key.sequence) {
            changes?.append(.watermark(writer: key.writer, client: client, sequence: key.sequence))
        }
        if case .failed(let error) = status {
            writers.values[index].refusals[key.sequence] = error
            changes?.append(.refusal(writer: key.writer, sequence: key.sequence, error))
        }
        recent = (key.writer, index)
    }

    /// A client connected and may still send writes of `floors`' writers, from each floor up:
    /// its other writers and the refusals below the floors are forgotten.
    /// - Returns: the changes for the store.
    /// - Complexity: O(w + r) for the client's w writers and r refusals.
    mutating func resume(client: String, floors: [String: Int64]) -> [LedgerChange] {
        var changes: [LedgerChange] = []
        recent = nil
        for (name, writer) in writers where StringOrder.bytesEqual(writer.client, client) {
            guard let floor = floors[name] else {
                writers[name] = nil
                changes.append(.forgetWriter(name))
                continue
            }
            let stale = writer.refusals.keys.filter { $0 < floor }
            if stale.isEmpty { continue }
            for sequence in stale { writers[name]?.refusals[sequence] = nil }
            changes.append(.forgetRefusals(writer: name, below: floor))
        }
        return changes
    }

    /// Puts back what a store kept.
    mutating func restore(_ stored: [StoredWriter]) {
        recent = nil
        for writer in stored {
            writers[writer.writer] = Writer(writer.writer, watermark: writer.watermark, refusals: writer.refusals)
        }
    }
}

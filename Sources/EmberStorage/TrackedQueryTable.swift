import EmberCore

/// A client store's tracked queries, by query, with the two questions every confirmed write asks
/// of them answered by walking its path once: is a default query at or above it complete, and
/// is one active.
///
/// A replay tracks one default query per confirmed location (Firebase's
/// `ensureCompleteTrackedQuery`): tens of thousands. Default queries are kept by path and each
/// record in a box, so that the tables stay small as they grow (a dictionary keyed by the whole
/// query, holding whole records, spent a tenth of a 100,000-write replay growing and touching
/// new pages). One owner: ``ClientStore``.
final class TrackedQueryTable {
    private final class Entry {
        var record: TrackedQuery
        init(_ record: TrackedQuery) { self.record = record }
    }

    /// Default queries, by location.
    private var defaults: [Path: Entry] = [:]
    /// Filtered queries.
    private var filtered: [QuerySpec: Entry] = [:]
    /// The locations of the complete default queries.
    private var completeDefaults = PathSet()
    /// The locations of the active default queries.
    private var activeDefaults = PathSet()

    init() {}

    /// The record of `spec` (a tracked query: one that loads all data is the default query),
    /// or `nil`; setting `nil` forgets it.
    /// - Complexity: O(d) for a path of depth d.
    subscript(spec: QuerySpec) -> TrackedQuery? {
        get {
            spec.loadsAllData ? defaults[spec.path]?.record : filtered[spec]?.record
        }
        set {
            if spec.loadsAllData {
                let entry = defaults[spec.path]
                let wasComplete = entry?.record.isComplete == true
                let wasActive = entry?.record.isActive == true
                if let newValue {
                    if let entry { entry.record = newValue } else { defaults[spec.path] = Entry(newValue) }
                } else {
                    defaults[spec.path] = nil
                }
                noteFlags(at: spec.path, wasComplete: wasComplete, wasActive: wasActive, now: newValue)
            } else if let newValue {
                if let entry = filtered[spec] { entry.record = newValue } else { filtered[spec] = Entry(newValue) }
            } else {
                filtered[spec] = nil
            }
        }
    }

    /// Changes the record of `spec` in place, made by `make` when `spec` is not tracked: a
    /// default query's location is looked up once (and hashed once more only when it is new),
    /// where reading the record and setting it again looked it up two or three times (each
    /// confirmed write of a client with a store updates one).
    /// - Parameter change: changes the record (given as it was, `nil` when new); returns
    ///   whether to keep the change.
    /// - Returns: the record kept, or `nil` when `change` kept nothing.
    /// - Complexity: O(d) for a path of depth d.
    func update(
        _ spec: QuerySpec, orMake make: () -> TrackedQuery, _ change: (_ before: TrackedQuery?, _ record: inout TrackedQuery) -> Bool
    ) -> TrackedQuery? {
        guard spec.loadsAllData else {
            let before = self[spec]
            var record = before ?? make()
            guard change(before, &record) else { return nil }
            self[spec] = record
            return record
        }
        let entry = defaults[spec.path]
        let before = entry?.record
        var record = before ?? make()
        guard change(before, &record) else { return nil }
        if let entry { entry.record = record } else { defaults[spec.path] = Entry(record) }
        noteFlags(at: spec.path, wasComplete: before?.isComplete == true, wasActive: before?.isActive == true, now: record)
        return record
    }

    /// Keeps the sets of complete and active default queries right for the default query at
    /// `path`, now `record`. The sets change only with the flags (a new query made complete,
    /// the usual first write to a location, walked both sets: 1,800 of the setter's 8,500
    /// instructions, callgrind).
    private func noteFlags(at path: Path, wasComplete: Bool, wasActive: Bool, now record: TrackedQuery?) {
        let isComplete = record?.isComplete == true
        let isActive = record?.isActive == true
        if isComplete != wasComplete {
            if isComplete { completeDefaults.insert(path) } else { completeDefaults.remove(path) }
        }
        if isActive != wasActive {
            if isActive { activeDefaults.insert(path) } else { activeDefaults.remove(path) }
        }
    }

    /// Every record, in no particular order.
    /// - Complexity: O(q) for q tracked queries.
    var records: [TrackedQuery] {
        defaults.values.map(\.record) + filtered.values.map(\.record)
    }

    /// Whether a complete default query at or above `path` holds its data whole.
    /// - Complexity: O(d) for a path of depth d.
    func completeDefaultCovers(_ path: Path) -> Bool { completeDefaults.covers(path) }

    /// Whether an active default query at or above `path` keeps its data synced.
    /// - Complexity: O(d) for a path of depth d.
    func activeDefaultCovers(_ path: Path) -> Bool { activeDefaults.covers(path) }
}

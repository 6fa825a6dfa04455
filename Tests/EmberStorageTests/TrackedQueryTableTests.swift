import EmberCore
@testable import EmberStorage
import Testing

/// A client store's tracked queries: the records, and the two questions every confirmed write
/// asks of them (is a default query at or above a location complete; is one active), which
/// must follow every change of a record's flags.
@Suite("Tracked query table")
struct TrackedQueryTableTests {
    private func record(_ path: Path, _ completeness: TrackedQuery.Completeness, _ activity: TrackedQuery.Activity) -> TrackedQuery {
        TrackedQuery(id: 1, query: .default(at: path), completeness: completeness, activity: activity, lastUse: 0)
    }

    @Test("the complete and active sets follow each change of a default query's flags, and its removal")
    func setsFollowTheFlags() {
        let table = TrackedQueryTable()
        let spec = QuerySpec.default(at: "a/b")
        #expect(!table.completeDefaultCovers("a/b/c") && !table.activeDefaultCovers("a/b"))
        table[spec] = record("a/b", .complete, .inactive)
        #expect(table.completeDefaultCovers("a/b/c") && !table.activeDefaultCovers("a/b"))
        table[spec] = record("a/b", .complete, .active)
        #expect(table.completeDefaultCovers("a/b") && table.activeDefaultCovers("a/b/c"))
        // The same flags again (a use): nothing changes.
        table[spec] = record("a/b", .complete, .active)
        #expect(table.completeDefaultCovers("a/b") && table.activeDefaultCovers("a/b"))
        table[spec] = record("a/b", .partial, .active)
        #expect(!table.completeDefaultCovers("a/b") && table.activeDefaultCovers("a/b"))
        table[spec] = record("a/b", .partial, .inactive)
        #expect(!table.completeDefaultCovers("a/b") && !table.activeDefaultCovers("a/b"))
        table[spec] = record("a/b", .complete, .active)
        table[spec] = nil
        #expect(table[spec] == nil)
        #expect(!table.completeDefaultCovers("a/b/c") && !table.activeDefaultCovers("a/b/c"))
        // A query above covers one below; removing the one below leaves it.
        table[.default(at: "a")] = record("a", .complete, .active)
        table[spec] = record("a/b", .complete, .active)
        table[spec] = nil
        #expect(table.completeDefaultCovers("a/b/c") && table.activeDefaultCovers("a/b/c"))
    }
}

import EmberCore
import EmberStorage

/// What the locations a tick writes, and their ancestors, held before the tick's first write
/// touched them: the shapes the store's commit needs to skip statements
/// (``ServerStore/commit(_:shapes:isLoaded:)``), recorded as the writes come instead of keeping
/// the whole tree as it was (a snapshot that shared the tree's nodes made every write copy the
/// B-tree nodes on its path, a tenth of a durable write's instructions).
///
/// Each location is recorded once, the first time a write at or below it comes, which is before
/// the tick changed it: a write changes its location, the locations below it and its ancestors,
/// and every ancestor is recorded before the write. Locations below one written this tick are
/// not recorded (they are never the outermost change nor an ancestor of one). A location not
/// whole in memory when first recorded is recorded as unknown: its node was partial.
///
/// A tick of one write (a writer waiting for each answer) keeps its path's shapes in an array;
/// a second write turns them into a trie of the paths written and their ancestors.
struct TickShapes {
    private final class Entry {
        /// `nil`: not recorded; `.some(nil)`: recorded as unknown.
        var shape: CommittedShape??
        /// Whether a write landed here this tick.
        var written = false
        var children = Children.none

        /// Whether the shape is recorded (perhaps as unknown): matched in place (comparing the
        /// double optional with `nil` copied and destroyed it, 1,000 instructions of a write in a
        /// tick of a hundred, callgrind).
        var isRecorded: Bool {
            if case .none = shape { return false }
            return true
        }
    }

    /// An entry's children. Most entries have one (the next key of the one path written
    /// through them), held as it is; more are hashed. (A dictionary for every entry cost a
    /// write of eight writers' ticks an allocation, a resize and two hashes per new level.)
    private enum Children {
        case none
        case one(ChildKey, Entry)
        case many([ChildKey: Entry])

        /// The child at `key`, if recorded.
        /// - Complexity: O(1) on average.
        subscript(key: ChildKey) -> Entry? {
            switch self {
            case .none: nil
            case .one(let childKey, let entry): childKey == key ? entry : nil
            case .many(let entries): entries[key]
            }
        }

        /// The child at `key`, made by `make` and recorded when there is none.
        /// - Complexity: O(1) on average.
        mutating func value(forKey key: ChildKey, inserting make: () -> Entry) -> Entry {
            switch self {
            case .none:
                let entry = make()
                self = .one(key, entry)
                return entry
            case .one(let childKey, let entry):
                if childKey == key { return entry }
                let made = make()
                // Room for a tick's worth of siblings at once: grown from two, a tick of a
                // hundred writes under one parent rehashed its keys about twice a write.
                var entries = [ChildKey: Entry](minimumCapacity: Children.initialCapacity)
                entries[childKey] = entry
                entries[key] = made
                self = .many(entries)
                return made
            case .many(var entries):
                // Let go of the dictionary first, so that the insertion changes it in place.
                self = .none
                let entry = entries.value(forKey: key, inserting: make)
                self = .many(entries)
                return entry
            }
        }

        /// The room a table of children starts with.
        static let initialCapacity = 32

        /// Calls `body` with each child, in no particular order.
        func forEach(_ body: (ChildKey, Entry) -> Void) {
            switch self {
            case .none: break
            case .one(let key, let entry): body(key, entry)
            case .many(let entries): for (key, entry) in entries { body(key, entry) }
            }
        }
    }

    private enum Record {
        case none
        /// One write at `path`; `shapes[d]` is the shape of its ancestor at depth `d` (the path
        /// itself at its depth), `nil` when unknown.
        case single(path: Path, shapes: [CommittedShape?])
        case trie(Entry)
    }

    private var record = Record.none
    /// The locations not whole in memory that a deletion of this tick left without data
    /// (``ServerTree/set(_:at:)``): their priority, kept only in the store, went with their
    /// data, even if a later write of the tick gives them data again.
    private(set) var emptied: Set<Path> = []

    /// Notes that a deletion left `path`, not whole in memory, without data.
    /// - Complexity: O(d) to hash a path of depth d.
    mutating func noteEmptied(_ path: Path) {
        emptied.insert(path)
    }

    /// Whether a deletion of this tick left `path` without data (``noteEmptied(_:)``).
    /// - Complexity: O(1) when none did; else O(d) to hash a path of depth d.
    func wasEmptied(_ path: Path) -> Bool {
        !emptied.isEmpty && emptied.contains(path)
    }

    /// Whether no write was recorded.
    var isEmpty: Bool {
        if case .none = record { return true }
        return false
    }

    /// Records the shapes of `path` and its ancestors, before a write at `path` changes `root`.
    /// - Parameter old: the node at `path` now, when the caller has it.
    /// - Parameter wholeFrom: the depth from which the locations on `path` are whole in memory
    ///   (the depth of the loaded region that covers the write); the nodes above it are not
    ///   looked up.
    /// - Complexity: O(d log n) for a path of depth d; a hash per level after the tick's first
    ///   write.
    mutating func willWrite(at path: Path, in root: Node, old: Node? = nil, wholeFrom: Int) {
        switch record {
        case .none:
            var shapes = [CommittedShape?](repeating: nil, count: path.count + 1)
            Self.walk(path, in: root, old: old, wholeFrom: wholeFrom) { depth, node in shapes[depth] = CommittedShape(node) }
            record = .single(path: path, shapes: shapes)
        case .single(let first, let shapes):
            let top = Entry()
            var entry = top
            for depth in 0...first.count {
                entry.shape = .some(shapes[depth])
                if depth == first.count {
                    entry.written = true
                } else {
                    entry = entry.children.value(forKey: first.keys[depth], inserting: Entry.init)
                }
            }
            record = .trie(top)
            Self.add(path, to: top, in: root, old: old, wholeFrom: wholeFrom)
        case .trie(let top):
            Self.add(path, to: top, in: root, old: old, wholeFrom: wholeFrom)
        }
    }

    /// Calls `body` with each depth of `path` from `wholeFrom` on and the node there, walking
    /// down from `root` (no path of the prefix is made).
    private static func walk(_ path: Path, in root: Node, old: Node?, wholeFrom: Int, _ body: (Int, Node) -> Void) {
        guard wholeFrom <= path.count else { return }
        if wholeFrom == path.count, let old {
            body(path.count, old)
            return
        }
        var node = root
        for depth in 0..<wholeFrom { node = node.child(path.keys[depth]) }
        body(wholeFrom, node)
        for depth in wholeFrom..<path.count {
            // The written location itself is `old` when the caller has it: no search of its
            // parent's children (a thousand of them: 350 instructions a write).
            node = (depth + 1 == path.count ? old : nil) ?? node.child(path.keys[depth])
            body(depth + 1, node)
        }
    }

    private static func add(_ path: Path, to top: Entry, in root: Node, old: Node?, wholeFrom: Int) {
        // The entries on the path, made as needed, stopping under a location written before;
        // kept on the stack (an array of them cost a write an allocation).
        if top.written { return }
        let count = path.count + 1
        withUnsafeTemporaryAllocation(of: Entry.self, capacity: count) { entries in
            var made = 0
            defer { entries.baseAddress!.deinitialize(count: made) }
            entries.baseAddress!.initialize(to: top)
            made = 1
            var entry = top
            var unknown = !top.isRecorded
            for key in path.keys {
                entry = entry.children.value(forKey: key, inserting: Entry.init)
                if entry.written { return }
                (entries.baseAddress! + made).initialize(to: entry)
                made += 1
                if !entry.isRecorded { unknown = true }
            }
            if unknown {
                // Locations above `wholeFrom` are not whole in memory: recorded as unknown.
                for depth in 0..<min(wholeFrom, count) where !entries[depth].isRecorded { entries[depth].shape = .some(nil) }
                walk(path, in: root, old: old, wholeFrom: wholeFrom) { depth, node in
                    if !entries[depth].isRecorded { entries[depth].shape = .some(CommittedShape(node)) }
                }
            }
            entry.written = true
        }
    }

    /// The shape `path` had before the tick changed it, when it was recorded whole.
    /// - Complexity: O(d) comparisons or hashes for a path of depth d.
    func shape(at path: Path) -> CommittedShape? {
        switch record {
        case .none:
            return nil
        case .single(let written, let shapes):
            guard path.count <= written.count, written.keys.prefix(path.count).elementsEqual(path.keys) else { return nil }
            return shapes[path.count]
        case .trie(let top):
            var entry = top
            for key in path.keys {
                guard let next = entry.children[key] else { return nil }
                entry = next
            }
            return entry.shape ?? nil
        }
    }

    /// The outermost paths written this tick.
    /// - Complexity: O(e) for the e entries recorded.
    var written: [Path] {
        switch record {
        case .none:
            return []
        case .single(let path, _):
            return [path]
        case .trie(let top):
            var found: [Path] = []
            func collect(_ entry: Entry, at path: Path) {
                if entry.written {
                    found.append(path)
                    return
                }
                entry.children.forEach { key, child in collect(child, at: path.child(key)) }
            }
            collect(top, at: .root)
            return found
        }
    }
}

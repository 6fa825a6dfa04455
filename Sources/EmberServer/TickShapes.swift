import EmberCore
import EmberStorage

/// What the locations a tick writes, and their ancestors, held before the tick's first write
/// touched them: the shapes the store's commit needs to skip statements
/// (``ServerStore/commit(_:shapes:isLoaded:)``), recorded as the writes come instead of keeping
/// the whole tree as it was (a snapshot that shared the tree's nodes made every write copy the
/// B-tree nodes on its path, a tenth of a durable write's instructions).
///
/// A trie of the paths written and their ancestors. Each location is recorded once, the first
/// time a write at or below it comes, which is before the tick changed it: a write changes its
/// location, the locations below it and its ancestors, and every ancestor is recorded before the
/// write. Locations below one written this tick are not recorded (they are never the outermost
/// change nor an ancestor of one). A location not whole in memory when first recorded is
/// recorded as unknown: its node was partial.
struct TickShapes {
    private final class Entry {
        /// `nil`: not recorded; `.some(nil)`: recorded as unknown.
        var shape: CommittedShape??
        /// Whether a write landed here this tick.
        var written = false
        var children: [ChildKey: Entry] = [:]
    }

    private var top = Entry()
    /// Whether no write was recorded.
    private(set) var isEmpty = true

    /// Records the shapes of `path` and its ancestors, before a write at `path` changes `root`.
    /// - Parameter wholeFrom: the depth from which the locations on `path` are whole in memory
    ///   (the depth of the loaded region that covers the write).
    /// - Complexity: O(d log n) for a path of depth d: a child lookup and a hash per level.
    mutating func willWrite(at path: Path, in root: Node, wholeFrom: Int) {
        isEmpty = false
        var entry = top
        var node = root
        var depth = 0
        while true {
            if entry.written { return }
            if entry.shape == nil { entry.shape = depth >= wholeFrom ? CommittedShape(node) : .some(nil) }
            if depth == path.count {
                entry.written = true
                return
            }
            let key = path.keys[depth]
            node = node.child(key)
            if let next = entry.children[key] {
                entry = next
            } else {
                let next = Entry()
                entry.children[key] = next
                entry = next
            }
            depth += 1
        }
    }

    /// The shape `path` had before the tick changed it, when it was recorded whole.
    /// - Complexity: O(d) hashes for a path of depth d.
    func shape(at path: Path) -> CommittedShape? {
        var entry = top
        for key in path.keys {
            guard let next = entry.children[key] else { return nil }
            entry = next
        }
        return entry.shape ?? nil
    }

    /// The outermost paths written this tick.
    /// - Complexity: O(e) for the e entries recorded.
    var written: [Path] {
        var found: [Path] = []
        func collect(_ entry: Entry, at path: Path) {
            if entry.written {
                found.append(path)
                return
            }
            for (key, child) in entry.children { collect(child, at: path.child(key)) }
        }
        collect(top, at: .root)
        return found
    }
}

extension SortedTree {
    /// The entry with the greatest key less than `key` (`key` need not be in the tree).
    ///
    /// One walk down, remembering the nearest smaller entry passed on the way: no cursor and
    /// its stack are made (a child event's previous sibling is asked for with every change a
    /// listener hears; through a cursor it cost about 4,000 instructions in a 1,000-child node).
    /// - Complexity: O(log n), no allocation.
    public func entry(before key: Key) -> Element? {
        guard var node = root else { return nil }
        var nearest: Element?
        while true {
            let (slot, found) = node.search(key)
            if found {
                // The greatest key below the match is the rightmost of the subtree left of it.
                guard !node.isLeaf else { return slot > 0 ? node.entries[slot - 1] : nearest }
                var below = node.children[slot]
                while !below.isLeaf { below = below.children[below.entries.count] }
                return below.entries.last ?? nearest
            }
            if slot > 0 { nearest = node.entries[slot - 1] }
            guard !node.isLeaf else { return nearest }
            node = node.children[slot]
        }
    }

    /// The entry with the least key greater than `key` (`key` need not be in the tree).
    /// - Complexity: O(log n), no allocation.
    public func entry(after key: Key) -> Element? {
        guard var node = root else { return nil }
        var nearest: Element?
        while true {
            let (slot, found) = node.search(key)
            if found {
                // The least key above the match is the leftmost of the subtree right of it.
                guard !node.isLeaf else { return slot + 1 < node.entries.count ? node.entries[slot + 1] : nearest }
                var above = node.children[slot + 1]
                while !above.isLeaf { above = above.children[0] }
                return above.entries.first ?? nearest
            }
            if slot < node.entries.count { nearest = node.entries[slot] }
            guard !node.isLeaf else { return nearest }
            node = node.children[slot]
        }
    }
}

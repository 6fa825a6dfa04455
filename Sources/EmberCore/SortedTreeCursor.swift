/// Walks a ``SortedTree`` in key order, forwards or backwards, from any position.
///
/// The cursor keeps the path from the root to the next entry, so each step costs `O(1)`
/// amortised and starting costs `O(log n)`. It holds the nodes it walks, so the tree it came
/// from may change meanwhile without affecting it.
public struct SortedTreeCursor<Key: TreeKey, Value: Sendable>: IteratorProtocol, Sequence, Sendable {
    /// Where a walk starts.
    public enum Start {
        /// The first entry, walking forwards.
        case start
        /// The last entry, walking backwards.
        case end
        /// The first entry with a key `>= key` (or `> key` when not inclusive), walking forwards.
        case from(Key, inclusive: Bool)
        /// The last entry with a key `<= key` (or `< key` when not inclusive), walking backwards.
        case downFrom(Key, inclusive: Bool)
        /// The first entry whose key satisfies `isInRange`, walking forwards. The predicate must
        /// be monotone over the key order: false for a prefix of the keys, true for the rest.
        case firstWhere((Key) -> Bool)
        /// The last entry whose key satisfies `isInRange`, walking backwards. The predicate must
        /// be true for a prefix of the keys and false for the rest.
        case lastWhere((Key) -> Bool)
    }

    typealias Node = SortedTreeNode<Key, Value>

    /// For a forward walk: the next entry of `node` to return is `entries[slot]`, after the
    /// subtree `children[slot]` has been walked. Backwards: `entries[slot - 1]` after
    /// `children[slot]`.
    private var stack: [(node: Node, slot: Int)] = []
    private let forwards: Bool

    init(_ tree: SortedTree<Key, Value>, from start: Start) {
        switch start {
        case .start, .from, .firstWhere: forwards = true
        case .end, .downFrom, .lastWhere: forwards = false
        }
        guard let root = tree.root else { return }
        stack.reserveCapacity(8)
        switch start {
        case .firstWhere(let isInRange):
            // Like `.from(key, inclusive: true)` where "key" is the first key in range.
            var node = root
            while true {
                let slot = Self.partition(node, isInRange)
                stack.append((node, slot))
                if node.isLeaf { break }
                node = node.children[slot]
            }
        case .lastWhere(let isInRange):
            var node = root
            while true {
                let slot = Self.partition(node) { !isInRange($0) }
                stack.append((node, slot))
                if node.isLeaf { break }
                node = node.children[slot]
            }
        case .start:
            descendLeftmost(root)
        case .end:
            descendRightmost(root)
        case .from(let key, let inclusive):
            var node = root
            while true {
                var (slot, found) = node.search(key)
                if found && !inclusive { slot += 1 }
                stack.append((node, slot))
                // On an exact hit the child before the entry holds only smaller keys; after an
                // exclusive hit the walk continues with the subtree right of it.
                if node.isLeaf { break }
                if found {
                    if inclusive { break }
                    descendLeftmost(node.children[slot])
                    break
                }
                node = node.children[slot]
            }
        case .downFrom(let key, let inclusive):
            var node = root
            while true {
                var (slot, found) = node.search(key)
                // Backwards, entries[slot - 1] is returned next: include an exact hit.
                if found && inclusive { slot += 1 }
                stack.append((node, slot))
                if node.isLeaf { break }
                if found {
                    if inclusive { break }
                    descendRightmost(node.children[slot])
                    break
                }
                node = node.children[slot]
            }
        }
    }

    /// The index of the first entry of `node` for which the monotone `predicate` holds.
    private static func partition(_ node: Node, _ predicate: (Key) -> Bool) -> Int {
        var low = 0, high = node.entries.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(node.entries[middle].key) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }

    private mutating func descendLeftmost(_ node: Node) {
        var node = node
        while true {
            stack.append((node, 0))
            if node.isLeaf { return }
            node = node.children[0]
        }
    }

    private mutating func descendRightmost(_ node: Node) {
        var node = node
        while true {
            stack.append((node, node.entries.count))
            if node.isLeaf { return }
            node = node.children[node.entries.count]
        }
    }

    /// The next entry in the walk's direction, or `nil` at the end.
    /// - Complexity: O(1) amortised.
    public mutating func next() -> (key: Key, value: Value)? {
        forwards ? nextForwards() : nextBackwards()
    }

    private mutating func nextForwards() -> (key: Key, value: Value)? {
        while let (node, slot) = stack.last {
            if slot < node.entries.count {
                stack[stack.count - 1].slot = slot + 1
                if !node.isLeaf { descendLeftmost(node.children[slot + 1]) }
                return node.entries[slot]
            }
            stack.removeLast()
        }
        return nil
    }

    private mutating func nextBackwards() -> (key: Key, value: Value)? {
        while let (node, slot) = stack.last {
            if slot > 0 {
                stack[stack.count - 1].slot = slot - 1
                if !node.isLeaf { descendRightmost(node.children[slot - 1]) }
                return node.entries[slot - 1]
            }
            stack.removeLast()
        }
        return nil
    }
}

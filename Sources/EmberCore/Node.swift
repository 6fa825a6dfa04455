/// An immutable JSON tree with priorities: the value at a location of the database.
///
/// A node is empty (no data: what `null`, `{}` and `[]` mean), a leaf (a boolean, number,
/// string or server-value placeholder), or an object with at least one non-empty child. Any
/// non-empty node may carry a ``Priority``. Empty children do not exist: setting a child to
/// ``empty`` removes it, and an object whose last child is removed becomes empty (and loses its
/// priority).
///
/// Children live in a persistent B-tree (``SortedTree``) in Firebase key order: look-up, insert
/// and remove cost `O(log n)`, and a changed copy shares all untouched structure with the
/// original, so keeping many versions of a large tree alive (each event holds one) is cheap.
/// When any child has a priority the node also keeps a priority index, so that children can be
/// walked in priority order (the default query order) in `O(log n + k)` as well.
///
/// Changes come in two forms: `updating…` returns a new node and leaves the original intact;
/// the `mutating` forms (`setChild`, `set(_:at:)`) change the node in place when its storage is
/// not shared, which makes building large trees fast.
public struct Node: Sendable {
    @usableFromInline
    enum Storage: Sendable {
        case empty
        case leaf(LeafValue)
        /// An object none of whose children has a priority.
        case children(SortedTree<ChildKey, Node>)
        /// An object some of whose children have priorities, with its priority index.
        indirect case indexed(IndexedChildren)
        /// A small object none of whose children has a priority, kept flat (read from the
        /// store; turned into `.children` when it changes).
        case packed(PackedChildren)
        /// Any non-empty storage above, with a priority.
        indirect case prioritized(Storage, Priority)
    }

    /// Children with a priority index: every child, ordered by (priority, key).
    @usableFromInline
    struct IndexedChildren: Sendable {
        var byKey: SortedTree<ChildKey, Node>
        var byPriority: SortedTree<PriorityKey, Node>
        /// How many children have a priority; the index is dropped when it reaches zero.
        var prioritizedCount: Int
    }

    @usableFromInline
    var storage: Storage

    @usableFromInline
    init(storage: Storage) { self.storage = storage }

    /// No data.
    public static let empty = Node(storage: .empty)

    /// A leaf.
    /// - Parameter priority: the leaf's priority, if any.
    public init(_ value: LeafValue, priority: Priority? = nil) {
        storage = .leaf(value)
        if let priority { storage = .prioritized(storage, priority) }
    }

    /// A small object of these children kept flat in one allocation, when they can be (see
    /// ``PackedChildren``: at most 32 children without priorities, leaves or objects kept flat
    /// themselves, with distinct keys, none empty); `nil` otherwise. It reads as the same
    /// object built by ``init(children:priority:)``, in a fifth of the memory.
    /// - Complexity: O(n log n + b) for n children and b bytes.
    public init?(packing children: [(ChildKey, Node)]) {
        guard let packed = PackedChildren.pack(children) else { return nil }
        storage = .packed(packed)
    }

    /// An object with the given children (empty children are skipped; later duplicates win).
    /// - Complexity: O(n log n).
    public init(children: some Sequence<(ChildKey, Node)>, priority: Priority? = nil) {
        self = .empty
        for (key, child) in children { setChild(key, child) }
        if let priority { self = withPriority(priority) }
    }

    // MARK: What it is

    /// Whether the node holds no data.
    /// - Complexity: O(1).
    @inlinable
    public var isEmpty: Bool {
        if case .empty = storage { return true }
        return false
    }

    /// Whether the node is a leaf.
    /// - Complexity: O(1).
    public var isLeaf: Bool { leafValue != nil }

    /// The leaf's value, or `nil` for empty nodes and objects.
    /// - Complexity: O(1).
    public var leafValue: LeafValue? {
        if case .leaf(let value) = base { return value }
        return nil
    }

    /// The node's priority.
    /// - Complexity: O(1).
    public var priority: Priority? {
        if case .prioritized(_, let priority) = storage { return priority }
        return nil
    }

    /// The storage without the priority.
    @usableFromInline
    var base: Storage {
        if case .prioritized(let base, _) = storage { return base }
        return storage
    }

    /// The same node with another priority (or none). An empty node stays empty.
    /// - Complexity: O(1).
    public func withPriority(_ priority: Priority?) -> Node {
        let base = self.base
        if case .empty = base { return .empty }
        guard let priority else { return Node(storage: base) }
        return Node(storage: .prioritized(base, priority))
    }

    /// The same node without its priority, recursively (what normal-form JSON shows).
    /// - Complexity: O(n) when any priority is present below, O(1) otherwise.
    public var withoutPriorities: Node {
        switch base {
        case .empty, .leaf, .packed: return withPriority(nil)
        case .children(let tree):
            // Children of plain storage may still have priorities deeper down.
            var copy = Node(storage: .children(tree))
            for (key, child) in tree where child.hasPrioritiesBelow {
                copy.setChild(key, child.withoutPriorities)
            }
            return copy
        case .indexed(let children):
            var copy = Node.empty
            for (key, child) in children.byKey { copy.setChild(key, child.withoutPriorities) }
            return copy
        case .prioritized:
            preconditionFailure("nested priority")
        }
    }

    private var hasPrioritiesBelow: Bool {
        switch storage {
        case .empty, .leaf, .packed: return false
        case .prioritized, .indexed: return true
        case .children(let tree): return tree.contains { $0.value.hasPrioritiesBelow }
        }
    }

    // MARK: Children

    /// The children in key order (an empty tree for leaves and empty nodes).
    @usableFromInline
    var childTree: SortedTree<ChildKey, Node> {
        switch base {
        case .children(let tree): tree
        case .indexed(let children): children.byKey
        case .packed(let packed): packed.tree
        default: SortedTree()
        }
    }

    /// The number of children.
    /// - Complexity: O(1).
    public var childCount: Int {
        switch base {
        case .children(let tree): tree.count
        case .indexed(let children): children.byKey.count
        case .packed(let packed): packed.count
        default: 0
        }
    }

    /// The child at `key` (empty when absent). `.priority` gives the priority as a leaf.
    /// - Complexity: O(log n).
    public func child(_ key: ChildKey) -> Node {
        if key.isPriority {
            return priority.map { Node($0.leafValue) } ?? .empty
        }
        switch base {
        case .children(let tree): return tree[key] ?? .empty
        case .indexed(let children): return children.byKey[key] ?? .empty
        case .packed(let packed): return packed.child(key) ?? .empty
        default: return .empty
        }
    }

    /// The node at a path below this one (empty when absent).
    /// - Complexity: O(d log n) for a path of d keys.
    public func child(at path: Path) -> Node {
        var node = self
        for key in path.keys {
            node = node.child(key)
            if node.isEmpty { break }
        }
        return node
    }

    /// Whether a non-empty child exists at `key`.
    /// - Complexity: O(log n).
    public func hasChild(_ key: ChildKey) -> Bool {
        switch base {
        case .children(let tree): return tree[key] != nil
        case .indexed(let children): return children.byKey[key] != nil
        case .packed(let packed): return packed.child(key) != nil
        default: return false
        }
    }

    /// The children in key order.
    /// - Complexity: O(1) to start, O(1) amortised per child.
    public var children: NodeChildren { NodeChildren(tree: childTree, start: .start) }

    /// The children in key order, starting at a position.
    /// - Complexity: O(log n) to start, O(1) amortised per child.
    public func children(from start: SortedTreeCursor<ChildKey, Node>.Start) -> NodeChildren {
        NodeChildren(tree: childTree, start: start)
    }

    /// The first child in key order.
    /// - Complexity: O(log n).
    public var firstChild: NamedNode? { childTree.first.map { NamedNode($0.key, $0.value) } }

    /// The last child in key order.
    /// - Complexity: O(log n).
    public var lastChild: NamedNode? { childTree.last.map { NamedNode($0.key, $0.value) } }

    /// The priority index, when some child has a priority.
    var priorityIndex: SortedTree<PriorityKey, Node>? {
        if case .indexed(let children) = base { return children.byPriority }
        return nil
    }

    // MARK: Changes

    /// Sets the child at `key` in place (an empty `child` removes it). Setting `.priority`
    /// sets the priority. A leaf that gains a child becomes an object and keeps its priority.
    /// - Complexity: O(log n); O(n log n) when the first child with a priority arrives (the
    ///   priority index is built then).
    public mutating func setChild(_ key: ChildKey, _ child: Node) {
        if key.isPriority {
            self = withPriority(child.leafValue.flatMap(Priority.init))
            return
        }
        if case .prioritized(let base, let priority) = storage {
            // Rare: objects with a priority are changed through a copy of their storage.
            var node = Node(storage: base)
            storage = .empty
            node.setChild(key, child)
            self = node.withPriority(priority)
            return
        }
        switch storage {
        case .empty, .leaf:
            if child.isEmpty { return }
            storage = .children(SortedTree())
        case .children, .indexed:
            break
        case .packed(let packed):
            storage = .children(packed.tree)
        case .prioritized:
            preconditionFailure("unreachable")
        }
        Self.set(child, at: key, in: &storage)
    }

    private static func set(_ child: Node, at key: ChildKey, in storage: inout Storage) {
        if var tree = storage.takeTree() {
            // `storage` no longer refers to the tree, so it is changed in place when unshared.
            if child.isEmpty {
                tree.removeValue(forKey: key)
            } else {
                tree.updateValue(child, forKey: key)
            }
            if tree.isEmpty {
                storage = .empty
            } else if let priority = child.priority {
                storage = .indexed(IndexedChildren(building: tree, prioritized: key, priority))
            } else {
                storage = .children(tree)
            }
            return
        }
        guard var children = storage.takeIndexed() else {
            preconditionFailure("set(_:at:in:) needs object storage")
        }
        let old = children.byKey[key]
        if let old {
            children.byPriority.removeValue(forKey: PriorityKey(old.priority, key))
            if old.priority != nil { children.prioritizedCount -= 1 }
        }
        if child.isEmpty {
            children.byKey.removeValue(forKey: key)
        } else {
            children.byKey.updateValue(child, forKey: key)
            children.byPriority.updateValue(child, forKey: PriorityKey(child.priority, key))
            if child.priority != nil { children.prioritizedCount += 1 }
        }
        if children.byKey.isEmpty {
            storage = .empty
        } else if children.prioritizedCount == 0 {
            storage = .children(children.byKey)
        } else {
            storage = .indexed(children)
        }
    }

    /// A copy with the child at `key` set (an empty `child` removes it).
    /// - Complexity: as ``setChild(_:_:)``, plus copying O(log n) shared tree nodes.
    public func updatingChild(_ key: ChildKey, _ child: Node) -> Node {
        var copy = self
        copy.setChild(key, child)
        return copy
    }

    /// Sets the node at a path below this one, in place, creating parents as needed. An empty
    /// `node` removes the location, and parents left empty disappear. Setting the root (the
    /// empty path) replaces this node. A last key of `.priority` sets a priority.
    ///
    /// Each level's child is moved out of its parent while it changes, so a tree that nothing
    /// else shares is changed without copying any of its B-tree nodes.
    /// - Complexity: O(d log n) for a path of d keys.
    public mutating func set(_ node: Node, at path: Path) {
        set(node, at: path[...])
    }

    /// A copy with the node at `path` replaced.
    /// - Complexity: O(d log n) for a path of d keys, plus copying the O(d log n) tree nodes
    ///   that this node shares with the copy.
    public func updating(at path: Path, _ node: Node) -> Node {
        var copy = self
        copy.set(node, at: path[...])
        return copy
    }

    private mutating func set(_ node: Node, at keys: ArraySlice<ChildKey>) {
        guard let key = keys.first else {
            self = node
            return
        }
        let rest = keys.dropFirst()
        if rest.isEmpty {
            setChild(key, node)
            return
        }
        precondition(!key.isPriority, ".priority must be the last key of a path")
        if case .packed(let packed) = storage { storage = .children(packed.tree) }
        if var tree = storage.takeTree() {
            // Common case: plain children. Leave a placeholder in the child's slot (no change
            // to the tree's shape), so that the child is referenced only from here.
            var child = tree.updateValue(.empty, forKey: key) ?? .empty
            child.set(node, at: rest)
            if child.isEmpty {
                tree.removeValue(forKey: key)
                storage = tree.isEmpty ? .empty : .children(tree)
            } else if child.priority == nil {
                tree.updateValue(child, forKey: key)
                storage = .children(tree)
            } else {
                // The child gained a priority: the priority index must be built.
                tree.removeValue(forKey: key)
                storage = tree.isEmpty ? .empty : .children(tree)
                setChild(key, child)
            }
            return
        }
        // Leaves, empty nodes, indexed children and prioritized objects: detach the child.
        // The detour may empty this node for a moment, which drops its priority: restore it.
        let priority = self.priority
        var child = self.child(key)
        setChild(key, .empty)
        child.set(node, at: rest)
        setChild(key, child)
        if self.priority != priority { self = withPriority(priority) }
    }
}

extension Node.Storage {
    /// Moves the children tree out, leaving `.empty`, so the caller holds the only reference.
    @inline(__always)
    mutating func takeTree() -> SortedTree<ChildKey, Node>? {
        guard case .children(let tree) = self else { return nil }
        self = .empty
        return tree
    }

    /// Moves the indexed children out, leaving `.empty`.
    @inline(__always)
    mutating func takeIndexed() -> Node.IndexedChildren? {
        guard case .indexed(let children) = self else { return nil }
        self = .empty
        return children
    }
}

extension Node.IndexedChildren {
    /// Builds the priority index of `tree`, where only `key` has a priority.
    init(building tree: SortedTree<ChildKey, Node>, prioritized key: ChildKey, _ priority: Priority) {
        byKey = tree
        var index = SortedTree<PriorityKey, Node>(
            sorted: tree.lazy.filter { $0.key != key }.map { (PriorityKey(nil, $0.key), $0.value) })
        index.updateValue(tree[key]!, forKey: PriorityKey(priority, key))
        byPriority = index
        prioritizedCount = 1
    }
}

extension Path {
    /// The keys as a slice (internal convenience for recursive walks).
    subscript(_: UnboundedRange) -> ArraySlice<ChildKey> { keys[...] }
}

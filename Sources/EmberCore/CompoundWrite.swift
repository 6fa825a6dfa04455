/// A set of overwrites at different paths, applied together: the merged form of pending writes
/// and of multi-path updates.
///
/// A write at a path replaces everything below it: adding a write below an existing one
/// updates that one, and adding a write above existing ones replaces them. Writes to `.priority`
/// set a priority.
public struct CompoundWrite: Sendable {
    /// The writes, by path.
    public private(set) var tree: ImmutableTree<Node>

    /// No writes.
    public static let empty = CompoundWrite(tree: .empty)

    public init(tree: ImmutableTree<Node>) {
        self.tree = tree
    }

    /// The writes of a multi-path update: each key of `updates` is a path below the location.
    public init(merge updates: [(Path, Node)]) {
        var write = CompoundWrite.empty
        for (path, node) in updates { write = write.adding(node, at: path) }
        self = write
    }

    /// Whether there are no writes.
    public var isEmpty: Bool { tree.isEmpty }

    /// A copy with `node` written at `path`.
    /// - Complexity: O(d log n), plus copying the O(d log n) tree nodes shared with `self`.
    public func adding(_ node: Node, at path: Path) -> CompoundWrite {
        var copy = self
        copy.add(node, at: path)
        return copy
    }

    /// Writes `node` at `path`, in place: below an existing write it updates that write, above
    /// existing writes it replaces them.
    /// - Complexity: O(d log n); nothing is copied when the writes are not shared.
    public mutating func add(_ node: Node, at path: Path) {
        if path.isEmpty {
            tree = ImmutableTree(node)
        } else if let rootMost = tree.findRootMostValue(on: path)?.path {
            let relative = rootMost.relative(to: path)!
            tree.modify(at: rootMost) { subtree in subtree.value!.set(node, at: relative) }
        } else {
            tree.modify(at: path) { subtree in subtree = ImmutableTree(node) }
        }
    }

    /// A copy with every write of `other` added below `path`.
    public func adding(_ other: CompoundWrite, at path: Path) -> CompoundWrite {
        var result = self
        other.tree.forEach { relative, node in result = result.adding(node, at: path.appending(relative)) }
        return result
    }

    /// A copy without the writes at and below `path`.
    /// - Complexity: O(d log n), plus copying the O(d log n) tree nodes shared with `self`.
    public func removing(at path: Path) -> CompoundWrite {
        var copy = self
        copy.remove(at: path)
        return copy
    }

    /// Removes the writes at and below `path`, in place.
    /// - Complexity: O(d log n); nothing is copied when the writes are not shared.
    public mutating func remove(at path: Path) {
        if path.isEmpty {
            self = .empty
        } else {
            tree.modify(at: path) { subtree in subtree = .empty }
        }
    }

    /// Whether the writes fully determine the value at `path`.
    public func hasCompleteWrite(at path: Path) -> Bool { completeNode(at: path) != nil }

    /// The value at `path` when the writes fully determine it.
    public func completeNode(at path: Path) -> Node? {
        // No writes (the usual case of a client that is not writing): no walk.
        if tree.isEmpty { return nil }
        guard let (rootMost, value) = tree.findRootMostValue(on: path) else { return nil }
        return value.child(at: rootMost.relative(to: path)!)
    }

    /// The immediate children that the writes fully determine.
    public var completeChildren: [NamedNode] {
        if let node = tree.value {
            return node.children.map { $0 }
        }
        return tree.childValues.map { NamedNode($0.0, $0.1) }
    }

    /// The writes below `path`, relative to it.
    /// - Complexity: O(d log n), one walk down `path`.
    public func child(at path: Path) -> CompoundWrite {
        if path.isEmpty || isEmpty { return self }
        // One walk: a value on the way (or at the end) shadows everything below it.
        var level = tree
        for (depth, key) in path.keys.enumerated() {
            if let value = level.value {
                return CompoundWrite(tree: ImmutableTree(value.child(at: Path(keys: Array(path.keys[depth...])))))
            }
            guard let next = level.children[key] else { return .empty }
            level = next
        }
        if let value = level.value { return CompoundWrite(tree: ImmutableTree(value)) }
        return CompoundWrite(tree: level)
    }

    /// `node` with every write applied.
    /// - Complexity: O(w · d log n) for w writes.
    public func apply(to node: Node) -> Node {
        Self.apply(tree, at: .root, to: node)
    }

    private static func apply(_ tree: ImmutableTree<Node>, at path: Path, to node: Node) -> Node {
        if let value = tree.value { return node.updating(at: path, value) }
        var node = node
        var priorityWrite: Node?
        for (key, child) in tree.children {
            if key.isPriority {
                priorityWrite = child.value
            } else {
                node = apply(child, at: path.child(key), to: node)
            }
        }
        if let priorityWrite, !node.child(at: path).isEmpty {
            node = node.updating(at: path.child(.priority), priorityWrite)
        }
        return node
    }
}

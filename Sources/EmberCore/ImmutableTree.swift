/// A persistent tree of optional values keyed by path: what pending writes, listens and
/// onDisconnect queues are organised by.
///
/// Each node may hold a value and has children keyed by ``ChildKey`` in a ``SortedTree``, so
/// changes share all untouched structure. Empty subtrees (no value anywhere below) are pruned.
public struct ImmutableTree<Value: Sendable>: Sendable {
    /// The value at this node.
    public var value: Value?
    /// The subtrees below this node.
    public var children: SortedTree<ChildKey, ImmutableTree<Value>>

    /// A tree with at most a value at its root.
    public init(_ value: Value? = nil, children: SortedTree<ChildKey, ImmutableTree<Value>> = SortedTree()) {
        self.value = value
        self.children = children
    }

    /// The empty tree.
    public static var empty: ImmutableTree { ImmutableTree() }

    /// Whether no value is stored anywhere in the tree.
    /// - Complexity: O(1).
    public var isEmpty: Bool { value == nil && children.isEmpty }

    /// The shallowest value on `path` that satisfies `predicate`, with its path.
    /// - Complexity: O(d log n) for a path of d keys.
    public func findRootMostMatching(on path: Path, _ predicate: (Value) -> Bool) -> (path: Path, value: Value)? {
        var tree = self
        var depth = 0
        while true {
            if let value = tree.value, predicate(value) {
                return (Path(keys: Array(path.keys[..<depth])), value)
            }
            guard depth < path.count, let child = tree.children[path.keys[depth]] else { return nil }
            tree = child
            depth += 1
        }
    }

    /// The shallowest value on `path`, with its path.
    public func findRootMostValue(on path: Path) -> (path: Path, value: Value)? {
        findRootMostMatching(on: path) { _ in true }
    }

    /// The subtree at `path` (empty when nothing is stored there).
    /// - Complexity: O(d log n).
    public func subtree(at path: Path) -> ImmutableTree {
        var tree = self
        for key in path.keys {
            guard let child = tree.children[key] else { return .empty }
            tree = child
        }
        return tree
    }

    /// The value stored exactly at `path`.
    /// - Complexity: O(d log n).
    public func value(at path: Path) -> Value? { subtree(at: path).value }

    /// A copy with `value` stored at `path` (keeping what is below it).
    /// - Complexity: O(d log n).
    public func setting(_ value: Value?, at path: Path) -> ImmutableTree {
        modifying(path.keys[...]) { tree in tree.value = value }
    }

    /// A copy with the whole subtree at `path` replaced.
    /// - Complexity: O(d log n).
    public func settingTree(_ subtree: ImmutableTree, at path: Path) -> ImmutableTree {
        modifying(path.keys[...]) { tree in tree = subtree }
    }

    /// A copy without the value at `path` (what is below it stays).
    /// - Complexity: O(d log n).
    public func removingValue(at path: Path) -> ImmutableTree {
        setting(nil, at: path)
    }

    /// Changes the subtree at `path` in place: created empty when absent, pruned when it ends
    /// empty. Each level's subtree changes where it is stored (``SortedTree/modifyValue(forKey:_:)``),
    /// so a tree that nothing else shares is changed without copying.
    /// - Complexity: O(d log n) for a path of d keys, plus `body`.
    public mutating func modify<Result>(at path: Path, _ body: (inout ImmutableTree) -> Result) -> Result {
        modify(path.keys[...], body)
    }

    private mutating func modify<Result>(
        _ keys: ArraySlice<ChildKey>, _ body: (inout ImmutableTree) -> Result
    ) -> Result {
        guard let key = keys.first else { return body(&self) }
        let rest = keys.dropFirst()
        var emptied = false
        if let result = children.modifyValue(forKey: key, { child -> Result in
            let result = child.modify(rest, body)
            emptied = child.isEmpty
            return result
        }) {
            if emptied { children.removeValue(forKey: key) }
            return result
        }
        var child = ImmutableTree()
        let result = child.modify(rest, body)
        if !child.isEmpty { children.updateValue(child, forKey: key) }
        return result
    }

    private func modifying(_ keys: ArraySlice<ChildKey>, _ body: (inout ImmutableTree) -> Void) -> ImmutableTree {
        var copy = self
        guard let key = keys.first else {
            body(&copy)
            return copy
        }
        let child = (children[key] ?? .empty).modifying(keys.dropFirst(), body)
        if child.isEmpty {
            copy.children.removeValue(forKey: key)
        } else {
            copy.children.updateValue(child, forKey: key)
        }
        return copy
    }

    /// Calls `body` with every value and its path, children before their parent, children in
    /// key order.
    /// - Complexity: O(n).
    public func forEach(_ body: (Path, Value) throws -> Void) rethrows {
        try forEach(from: .root, body)
    }

    private func forEach(from path: Path, _ body: (Path, Value) throws -> Void) rethrows {
        for (key, child) in children { try child.forEach(from: path.child(key), body) }
        if let value { try body(path, value) }
    }

    /// Calls `body` with each value on `path` from the root down, and returns the subtree at
    /// `path`.
    /// - Complexity: O(d log n).
    @discardableResult
    public func forEach(on path: Path, _ body: (Path, Value) throws -> Void) rethrows -> ImmutableTree {
        var tree = self
        for depth in 0..<path.count {
            if let value = tree.value { try body(Path(keys: Array(path.keys[..<depth])), value) }
            guard let child = tree.children[path.keys[depth]] else { return .empty }
            tree = child
        }
        return tree
    }

    /// The first non-nil result of `transform` over the values on `path`, from the root down.
    /// - Complexity: O(d log n).
    public func first<T>(on path: Path, _ transform: (Path, Value) throws -> T?) rethrows -> T? {
        var tree = self
        var depth = 0
        while true {
            if let value = tree.value, let result = try transform(Path(keys: Array(path.keys[..<depth])), value) {
                return result
            }
            guard depth < path.count, let child = tree.children[path.keys[depth]] else { return nil }
            tree = child
            depth += 1
        }
    }

    /// Folds the tree bottom-up: `combine` receives a node's path, value and its children's
    /// results.
    /// - Complexity: O(n).
    public func fold<T>(_ combine: (Path, Value?, [(ChildKey, T)]) throws -> T) rethrows -> T {
        try fold(from: .root, combine)
    }

    private func fold<T>(from path: Path, _ combine: (Path, Value?, [(ChildKey, T)]) throws -> T) rethrows -> T {
        var results: [(ChildKey, T)] = []
        for (key, child) in children { results.append((key, try child.fold(from: path.child(key), combine))) }
        return try combine(path, value, results)
    }

    /// The values of the immediate children that have one, in key order.
    public var childValues: [(ChildKey, Value)] {
        children.compactMap { entry in entry.value.value.map { (entry.key, $0) } }
    }
}

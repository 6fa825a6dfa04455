import EmberCore

/// The pending writes seen from one location: every question is asked relative to `path`.
struct WriteTreeRef: Sendable {
    /// The location.
    let path: Path
    /// All pending writes.
    let tree: WriteTree

    /// The same writes seen from the child `key`.
    func child(_ key: ChildKey) -> WriteTreeRef { WriteTreeRef(path: path.child(key), tree: tree) }

    func completeEventCache(server: Node?) -> Node? {
        tree.completeEventCache(at: path, server: server)
    }

    func completeEventChildren(server: Node?) -> Node {
        tree.completeEventChildren(at: path, server: server)
    }

    func eventCacheAfterServerOverwrite(_ childPath: Path, existingServer: Node) -> Node? {
        tree.eventCacheAfterServerOverwrite(at: path, childPath: childPath, existingServer: existingServer)
    }

    func shadowingWrite(at relative: Path) -> Node? {
        tree.shadowingWrite(at: path.appending(relative))
    }

    func completeChild(_ key: ChildKey, server: CacheNode) -> Node? {
        tree.completeChild(at: path, key, server: server)
    }

    func child(after position: NamedNode, in index: Index, reverse: Bool, server: Node?) -> NamedNode? {
        tree.child(at: path, after: position, in: index, reverse: reverse, server: server)
    }
}

import EmberCore
import EmberRules
import EmberStorage
import EmberWire

extension ServerCore {
    /// A put checked and resolved, not applied yet.
    struct PreparedPut {
        let resolved: Node
    }

    /// A merge checked and resolved, not applied yet.
    struct PreparedMerge {
        let resolved: [WireChange]
    }

    /// Above this many changes, a merge reads its location whole before it is applied, rather
    /// than each changed location.
    static let mergeLoadsWhole = 256

    /// Checks a put by the connection `id` (`nil`: the administrator) — validity, then the
    /// rules with its server values resolved, then the hash — and resolves it.
    ///
    /// The rules come before the hash: a put they refuse is refused whatever its hash, or
    /// `datastale` for a wrong guess and `permission_denied` for the right one would tell a
    /// client the rules keep out what is there (and `""` whether anything is).
    mutating func prepare(
        _ node: Node, at path: Path, hash: String?, as auth: ConnectionAuth, by id: ConnectionID?, into actions: inout [ServerAction]
    ) throws(DatabaseError) -> PreparedPut {
        try checkWrite(node, at: path)
        if let error = load(path) { throw error }
        // One instant for the server values and the rules' `now` (Firebase resolves them
        // together): the clock is read once.
        let now = serverTime
        // What is there is read only when something needs it (server values, a hash): a walk
        // down the tree, two searches of sorted children for the usual `a/b` (1,500
        // instructions of a write, callgrind).
        let resolved: Node
        if node.containsServerValues {
            resolved = node.resolvingServerValues(existing: tree.root.child(at: path), serverTime: now)
            // A server value must resolve to something storable (an increment can overflow).
            try resolved.validate(at: path)
        } else {
            resolved = node
        }
        if let id, authorizer.applies(to: auth),
            let error = denial(.write([path]), as: auth, by: id, at: now, writing: [RuleData.Write(path, resolved)], into: &actions)
        {
            throw error
        }
        try checkWritesAllowed(at: path)
        if let hash, !tree.root.child(at: path).hasHash(hash) { throw .dataStale(at: path) }
        return PreparedPut(resolved: resolved)
    }

    /// Checks and applies a put, and tells every listen it touches.
    mutating func put(
        _ node: Node, at path: Path, hash: String?, as auth: ConnectionAuth, by id: ConnectionID?, into actions: inout [ServerAction]
    ) throws(DatabaseError) {
        let prepared = try prepare(node, at: path, hash: hash, as: auth, by: id, into: &actions)
        // No array of the one path is made when no index is built (an allocation a put).
        if !indexes.isEmpty { indexes.willWrite(at: [path], root: tree.root) }
        tree.set(prepared.resolved, at: path)
        indexes.didWrite(root: tree.root)
        actions.append(.changed(path))
        broadcast(at: path, written: nil, into: &actions) { tag in .dataUpdate(path: path, data: prepared.resolved, tag: tag) }
    }

    /// Checks a merge by the connection `id` (validity, then the rules for every changed path
    /// against the same new data: allowed only as a whole) and resolves it.
    mutating func prepare(
        _ changes: [WireChange], at path: Path, as auth: ConnectionAuth, by id: ConnectionID?, into actions: inout [ServerAction]
    ) throws(DatabaseError) -> PreparedMerge {
        if let id, authorizer.applies(to: auth), let first = changes.first {
            // Refused before it is validated, resolved and laid over the tree when the rules
            // refuse its first path whatever is written (`.write` rules that do not read
            // `newData`): the whole check would refuse that path first, too.
            let firstPath = path.appending(first.path)
            if try authorizer.grantsWrite(at: firstPath, as: auth, at: serverTime, over: tree) == false,
                let error = denial(
                    .write([firstPath]), as: auth, by: id, at: serverTime, writing: [RuleData.Write(firstPath, first.node)], into: &actions)
            {
                throw error
            }
        }
        try checkMerge(changes, at: path)
        // The locations written, read first: each one, or the merge's location whole when
        // there are many (one range of rows instead of thousands of reads).
        if changes.count > Self.mergeLoadsWhole {
            if let error = load(path) { throw error }
        } else {
            for change in changes {
                if let error = load(path.appending(change.path)) { throw error }
            }
        }
        let now = serverTime
        var resolved: [WireChange] = []
        for change in changes {
            // What is there is read only for server values (as a put's).
            guard change.node.containsServerValues else {
                resolved.append(change)
                continue
            }
            let full = path.appending(change.path)
            let node = change.node.resolvingServerValues(existing: tree.root.child(at: full), serverTime: now)
            // A server value must resolve to something storable (an increment can overflow).
            try node.validate(at: full)
            resolved.append(WireChange(change.path, node))
        }
        if let id, authorizer.applies(to: auth) {
            let writes = resolved.map { RuleData.Write(path.appending($0.path), $0.node) }
            if let error = denial(.write(writes.map(\.path)), as: auth, by: id, at: now, writing: writes, into: &actions) { throw error }
        }
        try checkWritesAllowed(at: path)
        return PreparedMerge(resolved: resolved)
    }

    /// Checks and applies a merge (all its changes or none), and tells every listen it touches.
    mutating func merge(
        _ changes: [WireChange], at path: Path, as auth: ConnectionAuth, by id: ConnectionID?, into actions: inout [ServerAction]
    ) throws(DatabaseError) {
        let prepared = try prepare(changes, at: path, as: auth, by: id, into: &actions)
        indexes.willWrite(at: changes.map { path.appending($0.path) }, root: tree.root)
        // Every change is checked: they all land. In place, so that only the nodes on each
        // changed path are touched.
        for change in prepared.resolved { tree.set(change.node, at: path.appending(change.path)) }
        for change in prepared.resolved { actions.append(.changed(path.appending(change.path))) }
        indexes.didWrite(root: tree.root)
        let resolved = prepared.resolved
        broadcast(at: path, written: resolved.map { path.appending($0.path) }, into: &actions) { tag in
            .mergeUpdate(path: path, changes: resolved, tag: tag)
        }
    }

    /// Refuses a write (checked and allowed by the rules) when ``writesRefused`` is set.
    private func checkWritesAllowed(at path: Path) throws(DatabaseError) {
        if let writesRefused { throw .other(code: ErrorCode.permissionDenied, message: writesRefused, at: path) }
    }

    private func checkWrite(_ node: Node, at path: Path) throws(DatabaseError) {
        if let store, store.isReadOnly {
            throw .other(
                code: ErrorCode.readOnly, message: "the database at \(store.location) is read-only (its directory cannot be written)",
                at: path)
        }
        try Self.checkPath(path)
        try node.validate(at: path)
    }

    private func checkMerge(_ changes: [WireChange], at path: Path) throws(DatabaseError) {
        try Node.validateUpdatePaths(changes.map(\.path), at: path)
        for change in changes { try checkWrite(change.node, at: path.appending(change.path)) }
    }

    /// Checks that every key of `path` is a valid key and that it is not too deep.
    static func checkPath(_ path: Path) throws(DatabaseError) {
        // The last key may be `.priority`: the write sets that node's priority.
        let keys = path.keys
        // By index: iterating a slice copied each key in and out (180 instructions a write).
        for index in 0..<(path.isPriority ? keys.count - 1 : keys.count) {
            if let problem = keys[index].problem {
                throw .invalidValue("the path has an invalid key \"\(keys[index].name)\": \(problem)", at: path)
            }
        }
        try path.checkDepth()
    }
}

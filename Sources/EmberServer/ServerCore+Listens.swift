import EmberCore
import EmberStorage
import EmberWire

extension ServerCore {
    /// Starts (or replaces) a listen of the connection `id`, its location loaded and the read
    /// allowed: its data is owed unless the client's hash says it has it.
    mutating func listen(_ query: QuerySpec, tag: Int?, hash: String, by id: ConnectionID, into actions: inout [ServerAction]) {
        // A listen sent again replaces the first (its tag, what was sent) in place.
        let existing = connections[id]?.listens[query]
        // A value or child order is indexed while it is listened to (ServerIndexes): counted
        // before the data is read, so that the index answers it.
        if existing == nil { indexes.listenStarted(query.params, at: query.path) }
        let data = self.data(for: query)
        let listen = existing ?? ServerListen(query: query, tag: tag)
        listen.tag = tag
        listen.sent = query.params.loadsAllData ? .empty : data
        if existing == nil {
            connections[id]?.listens[query] = listen
            addListenRef(ListenRef(connection: id, listen: listen))
        }
        // A client with nothing cached sends an empty hash: skip hashing the location then
        // (only empty data hashes to "").
        if hash.isEmpty ? !data.isEmpty : !data.hasHash(hash) {
            actions.append(.update(id, .dataUpdate(path: query.path, data: data, tag: tag)))
        }
    }

    /// Adds a listen at its location, changing the tree in place (`ImmutableTree.modify`:
    /// nothing else shares it), so that n listens on one location cost O(n) in all, not a copy
    /// of the location's list per listen.
    /// - Complexity: O(depth) amortized.
    private mutating func addListenRef(_ ref: ListenRef) {
        listens.modify(at: ref.query.path) { tree in
            if tree.value == nil { tree.value = ListenRefs(ref) } else { tree.value!.append(ref) }
        }
    }

    /// Ends a listen: marked, then dropped from its location's list when the list is compacted
    /// (``ListenRefs``), the location pruned once none stands.
    /// - Complexity: O(depth) amortized.
    mutating func end(_ listen: ServerListen) {
        guard listen.isListening else { return }
        listen.isListening = false
        indexes.listenEnded(listen.query.params, at: listen.query.path)
        listens.modify(at: listen.query.path) { tree in
            tree.value?.noteEnded()
            if tree.value?.isEmpty == true { tree.value = nil }
        }
    }

    /// Calls `body` with every listen of `listens` at, above (`above: true`) or below `path`.
    /// Static, over a copy of the tree of listens, so that `body` may change the core.
    /// - Complexity: O(d log n) to reach `path`, plus the listens below it.
    static func forEachListen(in listens: ImmutableTree<ListenRefs>, touching path: Path, _ body: (ListenRef, _ above: Bool) -> Void) {
        let below = listens.forEach(on: path) { _, refs in
            refs.forEach { body($0, true) }
        }
        below.value?.forEach { body($0, true) }
        for (_, child) in below.children {
            child.forEach { _, refs in
                refs.forEach { body($0, false) }
            }
        }
    }

    /// Tells every listen that the data at `written` (below `path`; `nil`: all of `path`, a
    /// put) changed: a default listen above `path` gets `message`, one below it its own
    /// location's new data, a filtered query its window's changes.
    mutating func broadcast(at path: Path, written: [Path]?, into actions: inout [ServerAction], message: (Int?) -> ServerMessage) {
        // The listen and its connection's id come with the reference: no lookup per listener
        // (a write to a location 1,000 connections listen to reaches each of them).
        Self.forEachListen(in: listens, touching: path) { ref, above in
            let listen = ref.listen
            let location = listen.query.path
            if !above, let written, !written.contains(where: { $0.contains(location) || location.contains($0) }) {
                // Below the update's location, but none of its paths touches this listen.
                return
            }
            if !listen.query.params.loadsAllData {
                sendWindowChanges(to: ref.connection, for: listen, into: &actions)
            } else if above {
                actions.append(.update(ref.connection, message(listen.tag)))
            } else {
                actions.append(.update(ref.connection, .dataUpdate(path: location, data: tree.node(at: location), tag: listen.tag)))
            }
        }
    }

    /// Every listen at, above or below `path` hears its data as it now is (the store's data
    /// there was replaced under the tree: an import).
    mutating func refreshListens(touching path: Path, into actions: inout [ServerAction]) {
        Self.forEachListen(in: listens, touching: path) { ref, _ in
            let listen = ref.listen
            guard listen.isListening, connections[ref.connection] != nil else { return }
            if listen.query.params.loadsAllData {
                actions.append(.update(ref.connection, .dataUpdate(path: listen.query.path, data: tree.node(at: listen.query.path), tag: listen.tag)))
            } else {
                sendWindowChanges(to: ref.connection, for: listen, into: &actions)
            }
        }
    }

    /// Sends a filtered query the children that entered, changed in or left its window.
    private mutating func sendWindowChanges(to id: ConnectionID, for listen: ServerListen, into actions: inout [ServerAction]) {
        guard connections[id] != nil else { return }
        let query = listen.query
        let now = data(for: query)
        if now == listen.sent { return }
        var changes: [WireChange] = []
        for child in listen.sent.children where !now.hasChild(child.key) {
            changes.append(WireChange(Path(keys: [child.key]), .empty))
        }
        for child in now.children where listen.sent.child(child.key) != child.node {
            changes.append(WireChange(Path(keys: [child.key]), child.node))
        }
        listen.sent = now
        actions.append(.update(id, .mergeUpdate(path: query.path, changes: changes, tag: listen.tag)))
    }

    /// What the listens hold of the data at `path`: all of it when one listens at or above it,
    /// the locations below it when one listens only there.
    func retention(of path: Path) -> ServerTree.Retention {
        var above = false
        let below = listens.forEach(on: path) { _, refs in
            if !refs.isEmpty { above = true }
        }
        if above || below.value?.isEmpty == false { return .whole }
        return below.children.isEmpty ? .none : .below
    }

    /// Undoes a tick whose commit failed (the host has put the tree back and discarded the
    /// store's changes): connections that were to hear of the refused writes get their
    /// listens' data again, before the answers (a listen answered in the tick needs its data
    /// first); the writes' answers become `storage_error` (recorded, so that a write sent again
    /// gets it), the gets are read again, and the rest of what was held is sent as it was.
    /// Every message of `actions` is sent at once: nothing is held.
    mutating func undo(_ held: [ServerAction], treeRestored: Bool, because error: StoreError, into actions: inout [ServerAction]) {
        if treeRestored { indexes.reset(rules: indexes.rules) }
        var stale = Set<ConnectionID>()
        for case .update(let id, _) in held { stale.insert(id) }
        for id in stale.sorted() {
            guard let connection = connections[id] else { continue }
            for (query, listen) in connection.listens {
                let data = data(for: query)
                if !query.params.loadsAllData { listen.sent = data }
                actions.append(.send(id, .dataUpdate(path: query.path, data: data, tag: listen.tag)))
            }
        }
        let refusal = DatabaseError.other(
            code: ErrorCode.storageError, message: "the server could not save the write, so it refused it: \(error)")
        for action in held {
            switch action {
            case .update, .changed, .recordLedger, .recordAnswer, .ruleChecked:
                continue
            case .writeAnswer(let id, let requestID, .ok, let key):
                // Refused for good: the store records it with its next commit, and a client
                // that sends the write again (after a restart) gets this answer, not an apply.
                recordAnswer(.failed(refusal), for: key, into: &actions)
                actions.append(.send(id, .ack(requestID: requestID, status: .failed(refusal))))
            case .getAnswer(let id, let requestID, let query, .data):
                switch read(query) {
                case .success(let data): actions.append(.send(id, .getResult(requestID: requestID, result: .data(data))))
                case .failure(let error): actions.append(.send(id, .getResult(requestID: requestID, result: .failed(error))))
                }
            case .getAnswer(let id, let requestID, _, let refused):
                actions.append(.send(id, .getResult(requestID: requestID, result: refused)))
            case .writeAnswer, .send:
                actions.append(action)
            }
        }
    }
}

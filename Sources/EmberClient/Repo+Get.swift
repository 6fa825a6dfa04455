import EmberCore
import EmberSync
import EmberWire

extension Repo {
    /// Reads `query` once: the cache when a live listen keeps it complete, otherwise the
    /// server when connected (waiting up to `connectTimeout` milliseconds, by default
    /// ``Query/defaultGetConnectTimeout``, for a connection), otherwise the cache; an `offline` error when
    /// not connected by then with nothing cached. A negative limit counts as 0 (no wait).
    func get(
        _ query: QuerySpec, connectTimeout: Int64? = nil, completion: @escaping (Result<Node, DatabaseError>) -> Void
    ) {
        if InfoTree.contains(query.path) {
            let node = Self.shape(info.value(at: query.path), for: query)
            raise([]) { completion(.success(node)) }
            return
        }
        if let live = liveData(for: query) {
            raise([]) { completion(.success(live)) }
            return
        }
        // Not connected: what the cache can vouch for answers at once, as a listener would get
        // it (in memory, or kept on disk by an earlier run); Repo.ts repoGetValue answers from
        // the cache first too.
        if connectionState != .connected, let cached = cachedData(for: query) ?? storedData(for: query) {
            raise([]) { completion(.success(cached)) }
            return
        }
        let limit = min(max(connectTimeout ?? Query.defaultGetConnectTimeout, 0), Query.maximumGetConnectTimeout)
        let id = gets.add(PendingGet(query: query, connectTimeout: limit, requestID: nil, completion: completion))
        switch connectionState {
        case .connected:
            let requestID = requests.newID()
            gets.sent(id, as: requestID)
            send(.get(requestID: requestID, query: query), as: .get(id))
        case .connecting, .disconnected, .offline:
            // It waits for a connection (going online sends it), as the SDKs' get does, for
            // up to GET_CONNECT_TIMEOUT (PersistentConnection.get: 3 s, then "Client is
            // offline"); "blocks get requests until the database is online".
            environment.schedule(after: limit) { [weak self] in
                guard let self, gets.isWaitingForConnection(id) else { return }
                finishGet(id, error: nil)
            }
        }
    }

    /// What the client's store can vouch for of `query` (complete data, or a complete window)
    /// when no view holds it in memory.
    private func storedData(for query: QuerySpec) -> Node? {
        guard let cached = persistence.serverCache(for: query), cached.isComplete else { return nil }
        syncTree.applyDeferredWrites()
        let node = syncTree.pendingWrites.completeEventCache(at: query.path, server: cached.node) ?? cached.node
        return Self.shape(node, for: query)
    }

    /// The server answered a get: its data, with the pending writes over it.
    ///
    /// The server's answer to a query is its window already (the server applies the query, as
    /// Firebase's does: `ServerCore.data(for:)`), and firebase-js-sdk's `repoGetValue`
    /// (Repo.ts) returns that payload as it came; only a pending write over the location can
    /// move a child into or out of it, so the window is taken again only then.
    func finishGet(_ id: GetRequestID, serverData: Node) {
        guard let get = gets.take(id) else { return }
        let path = get.query.path
        syncTree.applyDeferredWrites()
        let pending = syncTree.pendingWrites
        guard pending.hasVisibleWrite(overlapping: path) else {
            raise([]) { get.completion(.success(serverData)) }
            return
        }
        let node = Self.shape(pending.completeEventCache(at: path, server: serverData) ?? serverData, for: get.query)
        raise([]) { get.completion(.success(node)) }
    }

    /// A get the server could not answer: with `error`, that error; without, the cache, or
    /// an `offline` error when nothing is cached.
    func finishGet(_ id: GetRequestID, error: DatabaseError?) {
        guard let get = gets.take(id) else { return }
        let result: Result<Node, DatabaseError>
        if let error {
            result = .failure(error)
        } else if let cached = cachedData(for: get.query) {
            result = .success(cached)
        } else {
            result = .failure(.other(
                code: ErrorCode.offline,
                message: "client \(name) is \(connectionState == .offline ? "offline" : "not connected (\(connectionState))") and has no cached data"
                    + (get.query.isDefault ? "" : " for the query \(get.query.params)"),
                at: get.query.path))
        }
        raise([]) { get.completion(result) }
    }

    /// The data of `query` from a listen that keeps it complete and current.
    private func liveData(for query: QuerySpec) -> Node? {
        guard connectionState == .connected, listens.loadsAllData(at: query.path),
            syncTree.completeEventCache(at: query.path) != nil
        else { return nil }
        return cachedData(for: query)
    }

    /// What the cache knows of `query`, complete, or `nil`.
    func cachedData(for query: QuerySpec) -> Node? {
        syncTree.completeEventCache(at: query.path).map { Self.shape($0, for: query) }
            ?? syncTree.completeViewCache(for: query)
    }

    /// What the client knows of `path` now, complete, or `nil` (`.info` included).
    func cachedValue(at path: Path) -> Node? {
        InfoTree.contains(path) ? info.value(at: path) : cachedData(for: .default(at: path))
    }

    /// A location's complete data as `query` returns it: whole, or its window.
    private static func shape(_ node: Node, for query: QuerySpec) -> Node {
        query.params.loadsAllData ? node : query.params.filteredNode(node)
    }
}

import EmberCore
import EmberStorage
import EmberSync

extension Repo {
    /// Whether `path` is in the client-local `.info` tree.
    static func isInfo(_ path: Path) -> Bool { path.front == .info }

    /// Registers `callback` for `types` on `query`; its initial events (child_added for each
    /// known child, value when the data is complete) are delivered at once.
    func addListener(
        _ query: QuerySpec, types: Set<EventType>, once: Bool = false, callback: @escaping (ListenerEvent) -> Void
    ) -> RegistrationID {
        let id = RegistrationID(nextRegistration)
        nextRegistration += 1
        listeners[id] = Listener(query: query, types: types, once: once, callback: callback)
        let registration = EventRegistration(id: id, types: types)
        let events: [Event]
        if Self.isInfo(query.path) {
            events = infoTree.addEventRegistration(registration, for: query)
        } else {
            let stored = store.map { store in { [unowned self] in self.storedServerCache(for: query, in: store) } }
            events = syncTree.addEventRegistration(registration, for: query, persisted: stored)
            store?.setQueryActive(query, now: environment.clock.now())
        }
        processListenRequests()
        raise(events)
        return id
    }

    /// Removes one listener. Nothing more reaches it, not even events already queued.
    func removeListener(_ id: RegistrationID) {
        guard let listener = listeners.removeValue(forKey: id) else { return }
        if Self.isInfo(listener.query.path) {
            raise(infoTree.removeEventRegistration(id, for: listener.query))
        } else {
            raise(syncTree.removeEventRegistration(id, for: listener.query))
            if let store, !syncTree.hasView(for: listener.query) {
                store.setQueryInactive(listener.query, now: environment.clock.now())
            }
        }
        processListenRequests()
    }

    /// Removes the listeners on `query` (with `type`, or all); for the default query, those on
    /// every query at its location. Listeners below the location stay.
    func removeListeners(_ query: QuerySpec, type: EventType?) {
        let matching = listeners.filter { id, listener in
            let sameQuery = query.isDefault ? listener.query.path == query.path : listener.query == query
            let keep = keepSyncedRegistrations.values.contains(id) || transactions.contains { $0.keepSynced == id }
            return sameQuery && !keep && (type.map { listener.types.contains($0) } ?? true)
        }
        for id in matching.keys.sorted(by: { $0.rawValue < $1.rawValue }) { removeListener(id) }
    }

    /// Keeps `query` synced (and cached) without a listener, or stops doing so.
    func keepSynced(_ query: QuerySpec, _ on: Bool) throws(DatabaseError) {
        if Self.isInfo(query.path) { throw .invalidValue("\(query.path) is client-local: there is nothing to sync", at: query.path) }
        if on {
            guard keepSyncedRegistrations[query] == nil else { return }
            keepSyncedRegistrations[query] = addListener(query, types: []) { _ in }
            store?.pin(query)
        } else if let id = keepSyncedRegistrations.removeValue(forKey: query) {
            removeListener(id)
            store?.unpin(query)
        }
    }

    /// The number of listeners (keep-synced pins and running transactions included).
    var listenerCount: Int { listeners.count }

    /// The server listens held now, by query.
    var activeListens: [QuerySpec] { listens.keys.sorted { $0.path < $1.path } }
}

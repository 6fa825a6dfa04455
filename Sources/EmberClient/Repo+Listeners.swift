import EmberCore
import EmberStorage
import EmberSync

extension Repo {
    /// Registers `callback` for `types` on `query`; its initial events (child_added for each
    /// known child, value when the data is complete) are delivered at once.
    func addListener(
        _ query: QuerySpec, types: Set<EventType>, once: Bool = false, callback: @escaping (ListenerEvent) -> Void
    ) -> RegistrationID {
        let id = listeners.add(Listener(query: query, types: types, once: once, callback: callback))
        let registration = EventRegistration(id: id, types: types)
        if InfoTree.contains(query.path) {
            raise(info.addEventRegistration(registration, for: query))
            return id
        }
        let persistence = persistence
        let stored = persistence.store == nil ? nil : { persistence.serverCache(for: query) }
        let events = syncTree.addEventRegistration(registration, for: query, persisted: stored)
        persistence.queryActive(query, now: environment.clock.now())
        processListenRequests()
        raise(events)
        return id
    }

    /// Removes one listener. Nothing more reaches it, not even events already queued.
    func removeListener(_ id: RegistrationID) {
        guard let listener = listeners.remove(id) else { return }
        if InfoTree.contains(listener.query.path) {
            raise(info.removeEventRegistration(id, for: listener.query))
            return
        }
        raise(syncTree.removeEventRegistration(id, for: listener.query))
        if !syncTree.hasView(for: listener.query) {
            persistence.queryInactive(listener.query, now: environment.clock.now())
        }
        processListenRequests()
    }

    /// Removes the listeners on `query` (with `type`, or all); for the default query, those on
    /// every query at its location. Listeners below the location stay, and so do keep-synced
    /// pins and the listeners of running transactions.
    func removeListeners(_ query: QuerySpec, type: EventType?) {
        let candidates = listeners.matching(query, type: type)
        for id in candidates where !transactions.holdsListener(id) { removeListener(id) }
    }

    /// Keeps `query` synced (and cached) without a listener, or stops doing so.
    func keepSynced(_ query: QuerySpec, _ on: Bool) throws(DatabaseError) {
        if InfoTree.contains(query.path) {
            throw .invalidValue("\(query.path) is client-local: there is nothing to sync", at: query.path)
        }
        if on {
            guard !listeners.isKeptSynced(query) else { return }
            listeners.keepSynced(query, by: addListener(query, types: []) { _ in })
            persistence.pin(query)
        } else if let id = listeners.stopKeepingSynced(query) {
            removeListener(id)
            persistence.unpin(query)
        }
    }
}

import EmberClient
import EmberEngine
import EmberServer
import EmberWire

/// The instance ends the engine's ticks for its stores.
extension Ember: TickParticipant {
    /// Whether something waits for the end of the tick: the server's held-back work, or a
    /// client's store changes that must be on disk by then (a client whose commit just failed
    /// waits for the next tick rather than spinning), or other changes of a client for which no
    /// commit is scheduled yet (the end of the tick schedules it; they wait for it, not for the
    /// tick).
    public var hasTickWork: Bool {
        if embeddedServer?.hasUncommittedWork == true { return true }
        guard case .directory = persistence else { return false }
        return clientDatabases.contains { client in
            client.lastStoreError == nil
                && (client.hasUrgentStoreChanges || (client.hasUncommittedChanges && !storeCommitScheduled))
        }
    }

    /// Commits what the server and the clients changed since the last tick: the server first
    /// (then it sends what it held back for the commit), then each client that must. A client's
    /// write the server answered in the tick is in the server's store by then, with its answer
    /// in the ledger, so its save in the client's queue is called off: a write made and answered
    /// in one tick costs one commit (one `fsync` in `full` mode) however many clients write,
    /// not one per store.
    ///
    /// A client commits at once only what must be on disk (a write still queued, a pin); its
    /// other changes (the cache, answered writes leaving the queue) wait up to
    /// ``deferredStoreCommitDelay`` milliseconds for a commit that carries many ticks' changes,
    /// without an `fsync`, made on the store's own queue (see ``ClientStore/commitInBackground()``).
    ///
    /// A crash between the commits loses nothing acknowledged: the acknowledgements wait for
    /// the server's commit, and a write it holds is never applied twice (its save was called
    /// off, or the ledger answers it again).
    ///
    /// A scheduled commit that found a client with a write in flight left that client to the
    /// end of its tick (``storeCommitDue``): its deferred changes are handed to its store's
    /// queue here, once the server's answers have called its saves off. A client whose
    /// completions send its next writes always has some in flight when the timer fires, and
    /// would otherwise hold every deferred change in memory until it stopped writing.
    public func endTick() {
        let answered: ((WriteKey) -> Bool)? =
            if let server = embeddedServer, server.endTick() { { server.hasAnswered($0) } } else { nil }
        let due = storeCommitDue
        storeCommitDue = false
        var deferred = false
        for client in clientDatabases where client.hasUncommittedChanges {
            if let answered { client.forgetSaves(answeredByServer: answered) }
            if client.hasUrgentStoreChanges {
                client.commitStore()
            } else if client.hasUncommittedChanges {
                if due { client.commitStoreInBackground() } else { deferred = true }
            }
        }
        if deferred { scheduleStoreCommit() }
    }

    /// Commits the clients' deferred store changes after ``deferredStoreCommitDelay``, once, on
    /// their stores' own queues (``Database/commitStoreInBackground()``): the engine's thread
    /// goes on with the next ticks meanwhile.
    private func scheduleStoreCommit() {
        guard !storeCommitScheduled else { return }
        storeCommitScheduled = true
        engine.schedule(after: Self.deferredStoreCommitDelay, .timer) { [weak self] in
            guard let self else { return }
            storeCommitScheduled = false
            commitClientStores(inBackground: true)
            // A client skipped for its write in flight is committed at the end of this tick.
            if clientDatabases.contains(where: { $0.hasUrgentStoreChanges && $0.hasUncommittedChanges }) {
                storeCommitDue = true
            }
        }
    }

    /// Commits the clients' deferred store changes now, and waits for those the scheduled
    /// commit handed to their stores' queues. A client that holds a queued write not answered
    /// yet (one in flight, whose answer the end of this tick will likely bring) is left to the
    /// end of the tick: committed now, its save would be written and `fsync`ed only to be
    /// removed a moment later.
    /// - Parameter inBackground: hand the changes to the stores' queues and go on
    ///   (``Database/commitStoreInBackground()``) instead.
    public func commitClientStores(inBackground: Bool = false) {
        for client in clientDatabases where !client.hasUrgentStoreChanges {
            if inBackground { client.commitStoreInBackground() } else { client.commitStore() }
        }
    }
}

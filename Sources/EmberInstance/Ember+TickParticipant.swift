import EmberClient
import EmberEngine
import EmberServer

/// The instance ends the engine's ticks for its stores.
extension Ember: TickParticipant {
    /// Whether something waits for the end of the tick: the server's held-back work, or a
    /// client's uncommitted store changes (a client whose commit just failed waits for the next
    /// tick rather than spinning).
    public var hasTickWork: Bool {
        if embeddedServer?.hasUncommittedWork == true { return true }
        guard case .directory = persistence else { return false }
        return clientDatabases.contains { $0.hasUncommittedChanges && $0.lastStoreError == nil }
    }

    /// Commits what the server and the clients changed since the last tick (clients first, so
    /// that a write is in its client's queue before the server's answer to it is durable); the
    /// server then sends what it held back for the commit.
    public func endTick() {
        for client in clientDatabases where client.hasUncommittedChanges { client.commitStore() }
        embeddedServer?.endTick()
    }
}

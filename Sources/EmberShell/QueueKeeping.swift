/// Where a client keeps the writes it queues.
public enum QueueKeeping: Sendable, Hashable {
    /// On disk (its store), or it does not matter: an embedded server in memory goes with
    /// them.
    case kept
    /// In memory only, while the server outlives this process (`ember --connect URL --memory`,
    /// or a client without a store): lost if ember exits before they are sent.
    case inMemory
}

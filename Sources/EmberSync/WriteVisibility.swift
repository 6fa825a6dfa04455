/// Whether listeners see a pending write before the server confirms it.
public enum WriteVisibility: Sendable, Hashable {
    /// Applied to the event data at once (every set and update).
    case visible
    /// Recorded but not shown (a transaction run without `applyLocally`).
    case hidden
}

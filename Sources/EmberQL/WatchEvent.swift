/// An event name a `watch` can ask for.
public enum WatchEvent: String, Sendable, Hashable, CaseIterable {
    case value
    case childAdded = "child_added"
    case childChanged = "child_changed"
    case childRemoved = "child_removed"
    case childMoved = "child_moved"
}

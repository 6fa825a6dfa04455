/// An event name a `watch` can ask for.
public enum WatchEvent: String, Sendable, Hashable, CaseIterable {
    /// The whole value, once now and at every change.
    case value
    /// A child appeared (in the query's window).
    case childAdded = "child_added"
    /// A child's value changed.
    case childChanged = "child_changed"
    /// A child went away (from the query's window).
    case childRemoved = "child_removed"
    /// A child moved in the query's order.
    case childMoved = "child_moved"
}

/// What a `tour` command asks.
public enum TourAction: Sendable, Hashable {
    /// `tour`: the lesson in progress, or the first.
    case show
    /// `tour N`: lesson N.
    case lesson(Int)
    /// `tour next`: the next lesson.
    case next
    /// `tour stop`.
    case stop
}

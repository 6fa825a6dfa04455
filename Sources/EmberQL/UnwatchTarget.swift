/// What an `unwatch` removes.
public enum UnwatchTarget: Sendable, Hashable {
    /// The watch with this number (as `watch` printed it).
    case id(Int)
    /// Every watch of the current client.
    case all
}

import Synchronization

/// When a connection was last heard from, for the idle timeout. Any thread.
final class Activity: Sendable {
    private let origin = ContinuousClock.now
    private let lastHeard = Atomic<Int64>(0)

    /// Notes that the connection was heard from now.
    func heard() {
        lastHeard.store(elapsedSeconds, ordering: .relaxed)
    }

    /// Seconds since the connection was last heard from.
    var silence: Int64 { elapsedSeconds - lastHeard.load(ordering: .relaxed) }

    private var elapsedSeconds: Int64 { (ContinuousClock.now - origin).components.seconds }
}

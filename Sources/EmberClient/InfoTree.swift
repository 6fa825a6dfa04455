import EmberCore
import EmberSync

/// The client-local `.info` tree (`.info/connected`, `.info/serverTimeOffset`): its data and
/// the sync tree its listeners register with. It is always complete: a listen is answered at
/// once from the data.
struct InfoTree {
    static let connectedPath = Path(keys: [.info, "connected"])
    static let serverTimeOffsetPath = Path(keys: [.info, "serverTimeOffset"])

    private var tree = SyncTree(listenProvider: ListenOutbox())
    private var data = Node.empty

    /// Whether `path` is in the `.info` tree.
    static func contains(_ path: Path) -> Bool { path.front == .info }

    /// The data at `path`.
    /// - Complexity: O(depth of `path`).
    func value(at path: Path) -> Node { data.child(at: path) }

    /// Sets a value; returns the events of the listeners there.
    /// - Complexity: O(depth of `path`) plus the views there.
    @discardableResult
    mutating func set(_ value: LeafValue, at path: Path) -> [Event] {
        data.set(Node(value), at: path)
        return tree.applyServerOverwrite(Node(value), at: path)
    }

    /// Registers a listener on `query`; returns its initial events (the data is complete).
    mutating func addEventRegistration(_ registration: EventRegistration, for query: QuerySpec) -> [Event] {
        var events = tree.addEventRegistration(registration, for: query)
        for request in tree.listenProvider.take() {
            guard case .start(let query, let tag) = request else { continue }
            events += tree.applyServerOverwrite(data.child(at: query.path), at: query.path)
            if let tag {
                events += tree.applyTaggedListenComplete(at: query.path, tag: tag)
            } else {
                events += tree.applyListenComplete(at: query.path)
            }
        }
        return events
    }

    /// Unregisters a listener; returns its events (none but a cancellation).
    mutating func removeEventRegistration(_ id: RegistrationID, for query: QuerySpec) -> [Event] {
        defer { _ = tree.listenProvider.take() }
        return tree.removeEventRegistration(id, for: query)
    }
}

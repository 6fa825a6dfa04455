import EmberCore
import EmberSync

/// One event a step expects, as the fixture writes it.
public struct SyncPointSpecEvent: Sendable, Hashable {
    /// The kind of event.
    public var type: EventType
    /// The path of the listen that receives the event (not the child's), relative to the base path.
    public var path: Path
    /// The child key, for child events; ignored for `value` events.
    public var name: String?
    /// The key of the child before, `nil` for JSON `null` or when absent; ignored for `value`
    /// events, and for `child_removed` events by the set matcher.
    public var prevName: String?
    /// The snapshot: the whole value for `value`, the child for child events (its old value for
    /// `child_removed`), with priorities.
    public var data: Node

    public init(type: EventType, path: Path, name: String? = nil, prevName: String? = nil, data: Node) {
        self.type = type
        self.path = path
        self.name = name
        self.prevName = prevName
        self.data = data
    }

    /// The event on one line, with its listen path joined on `base`.
    public func rendered(base: Path) -> String {
        var text = "\(type.rawValue) on \(base.appending(path))"
        if type != .value {
            text += " name=\(SyncPointSpecMatcher.quoted(name))"
            if type != .childRemoved { text += " prevName=\(SyncPointSpecMatcher.quoted(prevName))" }
        }
        return text + " data=\(data.jsonString(.export))"
    }
}

import EmberClient
import EmberCore
import EmberSync

/// A listener a script added with `on`: its query and event, its Lua function, its handle.
final class LuaListener {
    /// The client it listens on.
    let database: Database
    /// What it listens to.
    let spec: QuerySpec
    /// The event.
    let eventType: EventType
    /// The registry reference of the callback.
    let function: Int32
    /// The registry reference of the cancel callback (`on`'s fourth argument), until it is
    /// called or the listener removed.
    var cancelFunction: Int32?
    /// The client's handle, once registered.
    var handle: ListenerHandle?
    /// Whether it still receives events (false after `off` or cancellation).
    var isActive = true

    /// A listener (not registered yet).
    init(database: Database, spec: QuerySpec, eventType: EventType, function: Int32, cancelFunction: Int32? = nil) {
        self.database = database
        self.spec = spec
        self.eventType = eventType
        self.function = function
        self.cancelFunction = cancelFunction
    }

    /// Where errors are reported from: "value listener on /chat".
    var context: String { "\(eventType.rawValue) listener on \(spec.path)" }
}

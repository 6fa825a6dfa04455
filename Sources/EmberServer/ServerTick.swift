import EmberCore
import EmberWire

/// What a server with a store has done since its last commit: the tree as it was before, and
/// every message it owes its connections, held until the tick's changes are on disk.
///
/// A value: the server fills it while it handles messages, and ``Server/endTick()`` either
/// releases it (the commit succeeded) or undoes it (the commit failed: the tree goes back to
/// what it was, the writes are refused, and listeners hear nothing of them).
struct ServerTick {
    /// A message owed to a connection.
    enum Held {
        /// Data for a listen: dropped if the tick is undone.
        case update(ConnectionID, ServerMessage)
        /// The answer to a write (`key`: its write key, when it has one): refused instead if the
        /// tick is undone.
        case writeAck(ConnectionID, requestID: Int, AckStatus, key: String?)
        /// The answer to a `get`: read again if the tick is undone.
        case get(ConnectionID, requestID: Int, QuerySpec, GetResult)
        /// Anything else (handshakes, listen and onDisconnect answers): sent either way.
        case other(ConnectionID, ServerMessage)
    }

    /// Whether the tick wrote (the tree before its first write is kept by the ``ServerTree``).
    var wrote = false
    /// The messages owed, in the order they were made.
    var held: [Held] = []

    /// Whether anything waits for the end of the tick.
    var isEmpty: Bool { !wrote && held.isEmpty }
}

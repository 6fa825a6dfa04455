import EmberCore
import EmberEngine
import EmberWire

/// A server in another process that an ``Ember``'s clients connect to instead of an embedded
/// one (`ember --connect URL`, or a second `ember` on a database directory another holds).
///
/// The network module provides it (a WebSocket speaking the realtime protocol v5); this module
/// only needs to open connections and cut them.
public protocol RemoteServer: AnyObject {
    /// Where the server is, as the user should read it (`ws://127.0.0.1:9000/?ns=demo`).
    var url: String { get }

    /// Called with what the user should hear about the connections (a server that cannot be
    /// reached, a redirect, a server going away), on the engine's thread.
    var onNotice: ((String) -> Void)? { get set }

    /// Opens a connection for one client. Its events arrive on `engine`'s thread, in order.
    func connect(on engine: Engine) -> any RemoteConnection

    /// Reads (`nil`) or replaces (`text`) the server's rules document, as an administrator
    /// (Firebase's REST `/.settings/rules.json`). `completion` runs on `engine`'s thread with
    /// the document in force after the request; until then the request counts as a message in
    /// flight on `engine`.
    func rules(_ text: String?, on engine: Engine, completion: @escaping (Result<String, DatabaseError>) -> Void)
}

/// One client's connection to a ``RemoteServer``.
public protocol RemoteConnection: AnyObject {
    /// The connection as the client uses it.
    var transport: ClientTransport { get }

    /// Called on the engine's thread with each protocol message as it is sent or received, as
    /// the socket carries it (what `trace` shows); `nil`: nothing is called.
    var onFrame: ((ProtocolDirection, String) -> Void)? { get set }


    /// Loses the connection abruptly, with no goodbye (`drop`): the client hears of it now; the
    /// server when its socket does.
    func drop()
}

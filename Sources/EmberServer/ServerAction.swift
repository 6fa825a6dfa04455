import EmberCore
import EmberStorage
import EmberWire

/// What ``ServerCore`` asks its host (``Server``) to do after it handled a request: the
/// messages it owes its connections, what the store must keep with the tick's commit, and the
/// rules checks it made. The core sends nothing and writes nothing to the store itself.
///
/// The host sends the messages at once without a store; with one it holds them until the
/// tick's commit (``ServerTick``), when it sends them, or, if the commit fails, undoes the tick
/// (each kind of message says what becomes of it then).
enum ServerAction {
    /// Data for a listen: dropped if the tick is undone.
    case update(ConnectionID, ServerMessage)
    /// The answer to a write (`key`: its write key, when it has one): refused instead if the
    /// tick is undone.
    case writeAnswer(ConnectionID, requestID: Int, AckStatus, key: SentWriteKey?)
    /// The answer to a `get`: read again if the tick is undone.
    case getAnswer(ConnectionID, requestID: Int, QuerySpec, GetResult)
    /// Any other message (handshakes, listen and onDisconnect answers, revocations): sent
    /// either way.
    case send(ConnectionID, ServerMessage)
    /// The location changed: the store writes it with the tick's commit.
    case changed(Path)
    /// The write ledger changed: the store keeps it with the tick's commit.
    case recordLedger([LedgerChange])
    /// A write keyed as earlier versions of Ember did was answered (`failure`: refused): the
    /// store keeps the answer with the tick's commit.
    case recordAnswer(key: String, failure: DatabaseError?)
    /// A rules check was made for a connection (what `rules trace` and the viewer list).
    case ruleChecked(RuleCheck)
}

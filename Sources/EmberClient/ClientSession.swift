import EmberCore
import EmberSync
import EmberWire

/// Who a client is and the numbers its session hands out: write ids for the sync tree, keys
/// for keyed writes, push ids.
///
/// The identity lasts as long as the client's store (or this run, without one); the writer is
/// new each run (`IDENTITY.SESSION`), so its sequence numbers start again from 1.
struct ClientSession {
    /// The client's lasting identity.
    let identity: String
    /// This session's writer, in the keys of its writes and transactions.
    let writer: String
    /// The number the next keyed write of this session gets.
    private(set) var nextSequence: Int64 = 1
    private var nextWriteID = 1
    private var pushIDs = PushIDGenerator()

    /// A session of the client whose store keeps `identity` (`nil`: no store, one session).
    /// `random` names the session.
    init(identity stored: String?, random: UInt64) {
        if let stored {
            identity = stored
            writer = stored + "." + String(random, radix: 36)
        } else {
            identity = String(random, radix: 36)
            writer = identity + ".0"
        }
    }

    /// The key of the next keyed write of this session.
    /// - Complexity: O(1).
    mutating func newWriteKey() -> WriteKey {
        defer { nextSequence += 1 }
        return WriteKey(writer: writer, sequence: nextSequence)
    }

    /// A new id for a write of the sync tree.
    /// - Complexity: O(1).
    mutating func newWriteID() -> WriteID {
        defer { nextWriteID += 1 }
        return WriteID(nextWriteID)
    }

    /// A new push id for `now` (the estimated server time).
    /// - Complexity: O(1).
    mutating func pushID(now: Int64, using random: inout some RandomNumberGenerator) -> String {
        pushIDs.next(now: now, using: &random)
    }
}

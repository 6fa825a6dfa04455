import EmberCore
import EmberSync

/// A server listen the client holds: the query as sent and its tag (for a filtered query).
struct ActiveListen: Sendable, Hashable {
    var query: QuerySpec
    var tag: QueryTag?
}

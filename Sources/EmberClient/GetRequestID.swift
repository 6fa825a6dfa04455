/// Numbers a `get` waiting for the server, so that its answer, its timeout and a lost connection
/// finish it exactly once.
struct GetRequestID: Sendable, Hashable {
    let rawValue: Int
}

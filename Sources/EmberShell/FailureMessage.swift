import Synchronization

/// A message a task leaves for the thread that waits on it: why a server it started did not
/// listen (`ember serve`, an interactive session's local socket).
package final class FailureMessage: Sendable {
    private let message = Mutex<String?>(nil)

    package init() {}

    /// Leaves `text`, replacing any message left before.
    package func set(_ text: String) { message.withLock { $0 = text } }

    /// The message left, if any.
    package var value: String? { message.withLock { $0 } }
}

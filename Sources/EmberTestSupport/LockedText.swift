import Foundation
import Synchronization

/// Text appended on one thread and read on another: what a child process has written so far.
public final class LockedText: Sendable {
    private let text = Mutex("")

    public init() {}

    /// Appends `data`, decoded as UTF-8.
    public func append(_ data: Data) {
        guard !data.isEmpty else { return }
        let decoded = String(decoding: data, as: UTF8.self)
        text.withLock { $0 += decoded }
    }

    /// Appends `more`.
    public func append(_ more: String) {
        text.withLock { $0 += more }
    }

    /// Everything appended so far.
    public var value: String { text.withLock { $0 } }
}

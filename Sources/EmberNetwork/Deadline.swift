import Synchronization

/// Races an operation against a time limit, for REST's `timeout=`: whichever ends first
/// answers; an operation that loses goes on to its end (the engine finishes what it was given),
/// its answer dropped.
enum Deadline {
    /// `operation`'s result, or `nil` if `milliseconds` pass first (no limit when `nil`).
    static func race<T: Sendable>(milliseconds: Int64?, _ operation: @escaping @Sendable () async -> T) async -> T? {
        guard let milliseconds else { return await operation() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let finish = Finish(continuation)
            let timer = Task {
                try? await Task.sleep(for: .milliseconds(milliseconds))
                if !Task.isCancelled { finish.resume(nil) }
            }
            Task {
                let result = await operation()
                timer.cancel()
                finish.resume(result)
            }
        }
    }

    /// Resumes a continuation once: the first answer counts.
    private final class Finish<T: Sendable>: Sendable {
        private let continuation: Mutex<CheckedContinuation<T?, Never>?>

        init(_ continuation: CheckedContinuation<T?, Never>) {
            self.continuation = Mutex(continuation)
        }

        func resume(_ value: T?) {
            let taken = continuation.withLock { slot -> CheckedContinuation<T?, Never>? in
                defer { slot = nil }
                return slot
            }
            taken?.resume(returning: value)
        }
    }
}

import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// Which of many sockets have something to read, through Linux's `epoll`: a wait costs what
/// is ready, not what is watched. The fan-out readers watch 1,000 sockets on one thread; a
/// `poll` over all of them on every wake-up cost that thread a third of its time (checking
/// 1,000 sockets to find the few a server had just written to), on the two cores the server
/// under test needs. Ember's and Redis's fan-outs read through this alike.
///
/// Level-triggered: a socket with unread bytes is reported again at the next wait.
final class ReadySockets {
    /// Why waiting failed.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let descriptor: Int32
    private var events: [epoll_event]

    /// Watches `sockets` for input; a ready socket is reported by its index in `sockets`.
    /// - Complexity: O(n) for n sockets (one `epoll_ctl` each).
    init(sockets: [Int32]) throws {
        descriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard descriptor >= 0 else { throw Failure(description: "epoll_create1: errno \(errno)") }
        events = Array(repeating: epoll_event(), count: min(max(sockets.count, 1), 1_024))
        for (index, socket) in sockets.enumerated() {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.u64 = UInt64(index)
            guard epoll_ctl(descriptor, EPOLL_CTL_ADD, socket, &event) == 0 else {
                let code = errno
                close(descriptor)
                throw Failure(description: "epoll_ctl(ADD) of socket \(socket): errno \(code)")
            }
        }
    }

    deinit { close(descriptor) }

    /// Waits up to `milliseconds` for input, then calls `body` with the index of each socket
    /// that has some; the number of sockets reported (0 when the wait timed out).
    /// - Complexity: O(r) for the r sockets ready.
    func wait(milliseconds: Int32, _ body: (Int) throws -> Void) throws -> Int {
        while true {
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(descriptor, buffer.baseAddress, Int32(buffer.count), milliseconds)
            }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Failure(description: "epoll_wait: errno \(errno)") }
            for slot in 0..<Int(count) { try body(Int(events[slot].data.u64)) }
            return Int(count)
        }
    }
}

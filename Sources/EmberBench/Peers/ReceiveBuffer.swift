#if canImport(Glibc)
import Glibc
#endif

/// What a bench client has received and not yet parsed: one kept buffer that input is read
/// into, its unread bytes moved to the front (or the buffer grown) only when the room after
/// them runs short, so that neither `BenchSocket` nor `RedisConnection` allocates, zeroes or
/// copies per read. Belongs to its client's thread.
final class ReceiveBuffer {
    /// The buffer; the unread bytes are `base[start..<end]`.
    private(set) var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var start = 0
    private(set) var end = 0

    /// The room kept free after the unread bytes before a read.
    private static let minimumSpace = 16 * 1024

    init(capacity: Int = 64 * 1024) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// How many bytes are unread.
    var count: Int { end - start }

    /// The unread bytes (valid until the next ``receive(from:)``).
    var unread: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + start, count: end - start) }

    /// The unread byte at `offset`.
    subscript(offset: Int) -> UInt8 { base[start + offset] }

    /// Marks `bytes` more as read.
    /// - Complexity: O(1).
    func consume(_ bytes: Int) {
        start += bytes
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Reads what one `read` of `socket` gives (blocking until something arrives; retried on
    /// EINTR) after the unread bytes.
    /// - Returns: how many bytes arrived (0: the peer closed), or -1 with `errno` set.
    /// - Complexity: O(1) amortized, O(n) in the unread bytes when they move or the buffer grows.
    func receive(from socket: Int32) -> Int {
        if capacity - end < Self.minimumSpace {
            // Move the unread bytes to the front, then grow if that did not free enough.
            let pending = end - start
            if start > 0 {
                memmove(base, base + start, pending)
                start = 0
                end = pending
            }
            if capacity - end < Self.minimumSpace {
                let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                grown.update(from: base, count: pending)
                base.deallocate()
                base = grown
                capacity *= 2
            }
        }
        while true {
            let count = Glibc.read(socket, base + end, capacity - end)
            if count < 0 && errno == EINTR { continue }
            if count > 0 { end += count }
            return count
        }
    }
}

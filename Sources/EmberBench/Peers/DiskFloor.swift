import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The disk alone, as the floor of a durable write that waits for its own `fsync`: one page
/// written with `pwrite` and made durable with `fdatasync` per write, with no database around
/// it. Every peer of the `full` rows pays at least this per acknowledged write when one writer
/// waits for each answer (SQLite `FULL` writes its WAL frames and `fdatasync`s them; Redis
/// `always` appends and `fdatasync`s; Tarantool `fsync` writes its xlog and `fsync`s), so the
/// ratio of each to it is how much of the row is the disk.
struct DiskFloor {
    /// The bytes written per write: one SQLite page.
    static let pageSize = 4_096
    /// The pages the writes cycle through, preallocated and synced before the timed loop, so
    /// that no write grows the file (a commit to SQLite's WAL after a checkpoint does not).
    static let pages = 256

    /// `count` writes of one page at the next of ``pages`` offsets, each followed by
    /// `fdatasync`, in a file of a fresh directory under /tmp: the time the loop took.
    /// - Throws: ``PeerFailure`` naming the call that failed.
    static func syncedWritesOnce(count: Int) throws -> Duration {
        let directory = TemporaryDirectory.make("disk-floor")
        defer { TemporaryDirectory.remove(directory) }
        let path = directory + "/floor.bin"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw PeerFailure("disk floor: cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var page = [UInt8](repeating: 0xA5, count: pageSize)
        for index in 0..<pages {
            guard page.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, pageSize, off_t(index * pageSize)) }) == pageSize else {
                throw PeerFailure("disk floor: cannot preallocate \(path): \(String(cString: strerror(errno)))")
            }
        }
        guard fsync(descriptor) == 0 else { throw PeerFailure("disk floor: fsync failed: \(String(cString: strerror(errno)))") }
        let start = ContinuousClock.now
        for index in 0..<count {
            page[0] = UInt8(truncatingIfNeeded: index)
            let offset = off_t((index % pages) * pageSize)
            guard page.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, pageSize, offset) }) == pageSize,
                fdatasync(descriptor) == 0
            else {
                throw PeerFailure("disk floor: write \(index) failed: \(String(cString: strerror(errno)))")
            }
        }
        return ContinuousClock.now - start
    }
}

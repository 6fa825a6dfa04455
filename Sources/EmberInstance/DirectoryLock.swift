import EmberCore
import EmberStorage

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on a database directory, held for the life of the process that opened it:
/// a second `ember` on the same directory is refused at start, with the holder's pid, instead of
/// keeping a second tree and losing the first one's writes.
///
/// `flock` on `DIR/ember.lock`, which also holds the holder's pid: the kernel releases the lock
/// when the process ends however it ends (SIGKILL included), so a stale lock cannot outlive its
/// holder. On a directory that cannot be written the lock is taken on the directory itself.
final class DirectoryLock {
    /// The lock file's name in the database directory.
    static let fileName = "ember.lock"

    private let descriptor: Int32

    /// Takes the lock on `directory`.
    /// - Parameter pid: the pid to record as the holder.
    /// - Throws: ``StoreError`` `database_in_use` naming the holder when another process (or
    ///   another instance in this process) holds it; `storage_error` when it cannot be taken.
    init(directory: String, pid: Int32 = getpid()) throws(StoreError) {
        let path = directory + "/" + Self.fileName
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        let writable = descriptor >= 0
        if !writable { descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            throw StoreError("cannot lock the database directory \(directory): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno
            let holder = Self.holder(at: path)
            close(descriptor)
            if reason == EWOULDBLOCK {
                let who = holder.map { "another ember process (pid \($0))" } ?? "another ember process"
                throw StoreError(
                    "the database at \(directory) is in use by \(who); only one process may open it at a time: "
                        + "close the other one, or open another directory (--db DIR) or --memory",
                    code: ErrorCode.databaseInUse)
            }
            throw StoreError("cannot lock the database directory \(directory): \(String(cString: strerror(reason)))")
        }
        if writable {
            let text = Array("\(pid)\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The pid recorded in the lock file, if any.
    private static func holder(at path: String) -> Int32? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingPrefixAndSuffixWhitespace()
        return Int32(text)
    }
}

extension String {
    fileprivate func trimmingPrefixAndSuffixWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

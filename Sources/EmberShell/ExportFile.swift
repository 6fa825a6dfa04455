import EmberCore
import Glibc

/// A file an import reads by offset (`pread`), for the ``ExportReader``: only the chunk being
/// read is in memory.
/// Read on the import's reading thread only once handed over (`pread` on its descriptor).
final class ExportFile: ExportReader.Source, @unchecked Sendable {
    private let descriptor: Int32
    let path: String
    let byteCount: Int

    /// Opens `path` for reading.
    /// - Throws: ``FileAccessError`` naming the file and its problem.
    init(path: String) throws(FileAccessError) {
        self.path = path
        (descriptor, byteCount) = try FileAccess.openForReading(path)
    }

    deinit { close(descriptor) }

    func bytes(at offset: Int, count: Int) throws(DatabaseError) -> [UInt8] {
        let wanted = max(0, min(count, byteCount - offset))
        var bytes = [UInt8](repeating: 0, count: wanted)
        var done = 0
        while done < wanted {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, wanted - done, off_t(offset + done))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                throw DatabaseError.other(
                    code: ErrorCode.ioError, message: "cannot read \(path) at byte \(offset + done): "
                        + (read < 0 ? FileAccess.reason(errno) : "the file is shorter than it was"))
            }
            done += read
        }
        return bytes
    }
}

import Glibc

/// A pipe for feeding a line editor or capturing what it writes, closed when released.
final class TestPipe {
    /// The descriptor to read from.
    private(set) var readEnd: Int32
    /// The descriptor to write to.
    private(set) var writeEnd: Int32

    init() {
        var descriptors: [Int32] = [-1, -1]
        // close-on-exec: a child spawned meanwhile by another test must not hold the pipe open
        // (pipe2 is hidden from Swift's Glibc module by feature-test macros)
        precondition(pipe(&descriptors) == 0, "pipe() failed")
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
    }

    /// A pipe already holding `text`, with its write end closed (the reader sees end of input).
    convenience init(holding text: String) {
        self.init()
        write(text)
        closeWriteEnd()
    }

    deinit {
        if readEnd >= 0 { close(readEnd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Writes `text` to the write end.
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.withUnsafeBytes { Glibc.write(writeEnd, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// Closes the write end.
    func closeWriteEnd() {
        close(writeEnd)
        writeEnd = -1
    }

    /// Reads what is buffered without blocking; `nil` when a writer is still open and nothing
    /// ended the stream (the read would block).
    func readAvailable() -> String? {
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count > 0 {
                bytes += buffer[..<count]
            } else if count == 0 {
                return String(decoding: bytes, as: UTF8.self)
            } else {
                return nil
            }
        }
    }
}

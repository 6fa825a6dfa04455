import Foundation
import Glibc

/// Reading and writing the files commands name (`import`, `export`, `run`, `-f`), and checking
/// the database directory, with every failure said in words from the system's own reason
/// (`errno`), instead of Foundation's "The operation could not be completed".
enum FileAccess {
    /// The contents of the regular file at `path` as UTF-8 text.
    /// - Throws: ``FileAccessError``: "no such file", "it is a directory", "permission denied",
    ///   "it is not UTF-8 text", or the system's reason.
    /// `path` with a leading `~` (alone or before `/`) replaced by the home directory
    /// (`$HOME`, else the user's entry in the password database), as a shell would (issue 37:
    /// `export /a ~/a.json` wrote to a directory named `~`). `~user` is left alone.
    static func expandingHome(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        var home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        if home == nil, let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir { home = String(cString: directory) }
        guard let home else { return path }
        return home + path.dropFirst()
    }

    /// Opens `path` for reading by offset (an import streams it).
    /// - Returns: the descriptor (the caller closes it) and the file's size.
    /// - Throws: ``FileAccessError`` as ``readText(_:)`` does.
    static func openForReading(_ path: String) throws(FileAccessError) -> (descriptor: Int32, size: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileAccessError("read", path, reason(errno)) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw FileAccessError("read", path, reason(code))
        }
        if isDirectory(status) {
            close(descriptor)
            throw FileAccessError("read", path, "it is a directory")
        }
        return (descriptor, Int(status.st_size))
    }

    static func readText(_ path: String) throws(FileAccessError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileAccessError("read", path, reason(errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileAccessError("read", path, reason(errno)) }
        if isDirectory(status) { throw FileAccessError("read", path, "it is a directory") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileAccessError("read", path, reason(errno))
            }
            bytes.append(contentsOf: chunk[..<count])
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FileAccessError("read", path, "it is not UTF-8 text")
        }
        return text
    }

    /// Replaces the file at `path` with `text`, atomically: a temporary file beside it is written
    /// and flushed, then renamed over it (an existing file keeps its permissions).
    /// - Throws: ``FileAccessError``: "it is a directory", "it is not a regular file",
    ///   "permission denied: the file is read-only", "the directory D does not exist", "D is not a
    ///   directory", or the system's reason.
    static func write(_ text: String, to path: String) throws(FileAccessError) {
        do {
            try write(to: path) { emit in try emit(text) }
        } catch let error as FileAccessError {
            throw error
        } catch {
            throw FileAccessError("write", path, "\(error)")
        }
    }

    /// Replaces the file at `path` with the chunks `produce` emits, atomically, as
    /// ``write(_:to:)`` does: when `produce` throws, the file is left as it was.
    /// - Throws: ``FileAccessError`` as ``write(_:to:)``, or what `produce` throws.
    static func write(to path: String, streaming produce: (_ emit: (String) throws -> Void) throws -> Void) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var mode = mode_t(0o666) & ~currentUmask()
        var existing = stat()
        if stat(path, &existing) == 0 {
            if isDirectory(existing) { throw FileAccessError("write", path, "it is a directory") }
            guard isRegularFile(existing) else { throw FileAccessError("write", path, "it is not a regular file") }
            guard existing.st_mode & 0o222 != 0 else {
                throw FileAccessError("write", path, "permission denied: the file is read-only")
            }
            guard access(path, W_OK) == 0 else { throw FileAccessError("write", path, reason(errno)) }
            mode = existing.st_mode & 0o7777
        } else if errno != ENOENT {
            throw FileAccessError("write", path, problem(with: directory) ?? reason(errno))
        } else if let problem = problem(with: directory) {
            throw FileAccessError("write", path, problem)
        }
        if name.isEmpty { throw FileAccessError("write", path, "it names a directory, not a file") }

        var template = Array((directory + "/." + name + ".XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw FileAccessError("write", path, reason(errno)) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var succeeded = false
        defer { if !succeeded { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            try produce { text in
                let bytes = Array(text.utf8)
                var written = 0
                while written < bytes.count {
                    let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
                    if count < 0 {
                        if errno == EINTR { continue }
                        throw FileAccessError("write", path, reason(errno))
                    }
                    written += count
                }
            }
            guard fchmod(descriptor, mode) == 0, fsync(descriptor) == 0 else {
                throw FileAccessError("write", path, reason(errno))
            }
        }
        guard rename(temporary, path) == 0 else { throw FileAccessError("write", path, reason(errno)) }
        succeeded = true
    }

    /// Why `path` cannot be a database directory, when it clearly cannot: it, or the closest
    /// part of it that exists, is not a directory. `nil` otherwise (the store reports the rest).
    static func databaseDirectoryProblem(_ path: String) -> String? {
        var status = stat()
        if stat(path, &status) == 0 {
            return isDirectory(status) ? nil : "it is not a directory"
        }
        guard errno == ENOENT || errno == ENOTDIR else { return nil }
        // the closest ancestor that exists
        var ancestor = path
        while let slash = ancestor.lastIndex(of: "/") {
            ancestor = slash == ancestor.startIndex ? "/" : String(ancestor[..<slash])
            if stat(ancestor, &status) == 0 {
                return isDirectory(status) ? nil : "\(ancestor) is not a directory"
            }
            if ancestor == "/" { break }
        }
        return nil
    }

    /// Why files cannot be created in `directory`: it does not exist or is not a directory.
    private static func problem(with directory: String) -> String? {
        var status = stat()
        guard stat(directory, &status) == 0 else {
            return errno == ENOENT ? "the directory \(directory) does not exist" : "\(directory): \(reason(errno))"
        }
        return isDirectory(status) ? nil : "\(directory) is not a directory"
    }

    /// The system's reason for `code`, in lower case ("permission denied"); "no such file" for
    /// `ENOENT`.
    static func reason(_ code: Int32) -> String {
        if code == ENOENT { return "no such file" }
        guard let text = strerror(code) else { return "error \(code)" }
        let reason = String(cString: text)
        return reason.prefix(1).lowercased() + reason.dropFirst()
    }

    private static func isDirectory(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFDIR }

    private static func isRegularFile(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFREG }

    /// The process's umask (read by setting it and putting it back).
    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}

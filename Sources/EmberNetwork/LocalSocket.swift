import EmberNetworkShared
import Foundation
import Glibc

/// The local (Unix domain) socket through which a second `ember` reaches a database directory
/// that another holds: the holder (`ember serve`, or an interactive shell) listens on it and
/// speaks the realtime protocol v5 there, as on its WebSocket port.
///
/// The socket is `DIR/ember.sock`. A socket's path is limited to 107 bytes; for a directory
/// deeper than that it is `/tmp/ember-UID/HASH.sock` instead, HASH being a hash of the
/// directory's real path, so that both sides find the same one. Only the user who owns it can
/// connect (mode 0600); the holder's directory lock makes it the only one to bind it, so a file
/// left by a holder that was killed is removed and bound again.
public enum LocalSocket {
    /// The longest path a Unix domain socket address holds (`sun_path` less its terminator).
    static let maxPathLength = 107

    /// Where the sockets of deep directories go: `/tmp/ember-UID`, made private to the user.
    static var privateDirectory: String { "/tmp/ember-\(getuid())" }

    /// The socket's path for the database directory `directory`.
    public static func path(forDatabase directory: String) -> String {
        let real = realPath(directory)
        let inside = real + "/ember.sock"
        if inside.utf8.count <= maxPathLength { return inside }
        return privateDirectory + "/\(RemoteAddress.stableHash(real)).sock"
    }

    /// The socket's path when something accepts connections on it now.
    public static func listening(forDatabase directory: String) -> String? {
        let path = path(forDatabase: directory)
        return accepts(path) ? path : nil
    }

    /// Prepares to bind `path`: creates its private directory when it is outside the database
    /// directory, and removes a socket file a killed holder left.
    /// - Throws: ``NetworkError`` when the directory cannot be made private or the old file
    ///   cannot be removed.
    static func prepare(_ path: String) throws(NetworkError) {
        let directory = (path as NSString).deletingLastPathComponent
        if directory == privateDirectory {
            mkdir(directory, 0o700)
            var status = stat()
            guard lstat(directory, &status) == 0, status.st_uid == getuid(), status.st_mode & 0o077 == 0 else {
                throw NetworkError(.unavailable, "\(directory) is not a private directory of this user: the local socket is not served")
            }
        }
        if unlink(path) != 0 && errno != ENOENT {
            throw NetworkError(.unavailable, "cannot remove the old local socket \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Makes the bound socket `path` the owner's only.
    static func restrict(_ path: String) {
        chmod(path, 0o600)
    }

    /// Whether a connection to the socket `path` is accepted.
    static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count <= maxPathLength else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
            buffer[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
    }

    private static func realPath(_ directory: String) -> String {
        guard let resolved = realpath(directory, nil) else {
            return directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

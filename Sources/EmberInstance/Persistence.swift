import EmberStorage
import Foundation

/// Where an ``Ember`` keeps its data.
public enum Persistence: Sendable, Hashable {
    /// Nothing on disk: everything is gone with the process (`ember --memory`).
    case memory
    /// A database directory: the server's tree in `server.sqlite`, each client's cache and write
    /// queue in `clients/NAME.sqlite`, found again by name after a restart (`ember --db DIR`).
    case directory(String, PersistenceSettings)

    /// The file of the server's store in the database directory `directory`.
    public static func serverFile(in directory: String) -> String { directory + "/server.sqlite" }

    /// The file of the store of the client `name` in the database directory `directory`.
    public static func clientFile(_ name: String, in directory: String) -> String {
        directory + "/clients/" + name + ".sqlite"
    }

    /// Whether the database directory, its server store and its `clients` directory can be
    /// written by this process.
    static func isWritable(directory: String) -> Bool {
        let server = serverFile(in: directory)
        return access(directory, W_OK) == 0 && access(directory + "/clients", W_OK) == 0
            && (access(server, F_OK) != 0 || access(server, W_OK) == 0)
    }

    /// Whether `file` exists and is empty (0 bytes).
    static func isEmptyFile(_ file: String) -> Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file) else { return false }
        return (attributes[.size] as? NSNumber)?.intValue == 0
    }

    /// Moves an unreadable store (`file`, with its `-wal` and `-shm`) aside, to
    /// `file.unreadable-TIME` (TIME in milliseconds since 1970, from `now`), so that a new store
    /// can start in its place while the old one is kept for inspection.
    /// - Returns: the new name of the file.
    /// - Throws: ``StoreError`` when it cannot be moved.
    static func setAside(_ file: String, now: Int64) throws(StoreError) -> String {
        let aside = "\(file).unreadable-\(now)"
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: file + suffix) {
            guard rename(file + suffix, aside + suffix) == 0 else {
                throw StoreError("cannot move the unreadable store \(file + suffix) aside: \(String(cString: strerror(errno)))")
            }
        }
        return aside
    }

    /// The stores moved aside in the database directory (by ``setAside(_:now:)``), by path.
    public func setAsideFiles() -> [String] {
        guard case .directory(let directory, _) = self else { return [] }
        let clients = directory + "/clients"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: clients)) ?? []
        return names.filter { $0.contains(".sqlite.unreadable-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
            .sorted().map { clients + "/" + $0 }
    }

    /// Creates the database directory and its `clients` directory when missing, for their
    /// user alone (0700, as the local socket is 0600).
    /// - Throws: ``StoreError`` naming the directory that cannot be created.
    func createDirectories() throws(StoreError) {
        guard case .directory(let directory, _) = self else { return }
        let clients = directory + "/clients"
        do {
            try FileManager.default.createDirectory(atPath: clients, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StoreError("cannot create the database directory \(clients): \(error.localizedDescription)")
        }
    }
}

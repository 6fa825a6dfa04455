import EmberStorage
import Foundation

/// Where an ``Ember`` keeps its data.
public enum Persistence: Sendable, Hashable {
    /// Nothing on disk: everything is gone with the process (`ember --memory`).
    case memory
    /// A database directory: the server's tree in `server.sqlite`, each client's cache and write
    /// queue in `clients/NAME.sqlite`, found again by name after a restart (`ember --db DIR`).
    case directory(String, PersistenceSettings)

    /// The file of the server's store, for a database directory.
    public var serverFile: String? {
        guard case .directory(let directory, _) = self else { return nil }
        return directory + "/server.sqlite"
    }

    /// The file of a client's store, for a database directory.
    public func clientFile(_ name: String) -> String? {
        guard case .directory(let directory, _) = self else { return nil }
        return directory + "/clients/" + name + ".sqlite"
    }

    /// Creates the database directory and its `clients` directory when missing.
    /// - Throws: ``StoreError`` naming the directory that cannot be created.
    func createDirectories() throws(StoreError) {
        guard case .directory(let directory, _) = self else { return }
        let clients = directory + "/clients"
        do {
            try FileManager.default.createDirectory(atPath: clients, withIntermediateDirectories: true)
        } catch {
            throw StoreError("cannot create the database directory \(clients): \(error.localizedDescription)")
        }
    }
}

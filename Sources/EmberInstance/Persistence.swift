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

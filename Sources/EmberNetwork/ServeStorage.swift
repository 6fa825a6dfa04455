import EmberInstance
import Foundation

/// Where `ember serve` keeps its databases.
public enum ServeStorage: Sendable, Hashable {
    /// Nothing on disk: each namespace starts empty and ends with the process.
    case memory
    /// A database directory: the default namespace lives in it (so `ember --db DIR` opens the
    /// same data), every other namespace NAME in `DIR/namespaces/NAME`.
    case directory(String, PersistenceSettings)

    /// How the namespace `name` is kept, given the default namespace's name.
    func persistence(of name: String, defaultNamespace: String) -> Persistence {
        switch self {
        case .memory: .memory
        case .directory(let directory, let settings):
            .directory(name == defaultNamespace ? directory : "\(directory)/namespaces/\(name)", settings)
        }
    }

    /// Whether the namespace `name` exists already: the default one always; with a database
    /// directory, one whose directory is there (made when it was created); in memory, none.
    func holds(_ name: String, defaultNamespace: String) -> Bool {
        switch self {
        case .memory: return name == defaultNamespace
        case .directory(let directory, _):
            return name == defaultNamespace || FileManager.default.fileExists(atPath: "\(directory)/namespaces/\(name)")
        }
    }
}

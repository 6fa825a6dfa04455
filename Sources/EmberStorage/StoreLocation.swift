/// Where a store (``ServerStore``, ``ClientStore``) keeps its data.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// An SQLite file at this path (created when missing; its directory must exist).
    case file(String)
    /// Memory only: gone when the store is released (`ember --memory`).
    case memory

    /// The path, or "memory".
    public var description: String {
        switch self {
        case .file(let path): path
        case .memory: "memory"
        }
    }
}

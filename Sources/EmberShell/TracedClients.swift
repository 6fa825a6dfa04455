import EmberClient

/// Whose realtime protocol messages `trace` prints.
enum TracedClients: Equatable {
    /// Every client's, those made later included (`trace on all`).
    case all
    /// These clients' (`trace on`, `trace on NAME`, added up).
    case clients(Set<ClientName>)

    /// Whether `client`'s messages are printed.
    func includes(_ client: ClientName) -> Bool {
        switch self {
        case .all: true
        case .clients(let clients): clients.contains(client)
        }
    }

    /// What is traced, as `trace` says it.
    var description: String {
        switch self {
        case .all: "every client"
        case .clients(let clients): clients.map(\.rawValue).sorted().joined(separator: ", ")
        }
    }
}

import EmberCore
import EmberSync
import EmberWire

extension Database {
    /// What this client holds now: its cache's views, its pending writes with their state, its
    /// listens on the server, its transactions in flight and its onDisconnect operations.
    /// - Complexity: O(v + w + l + t + o) in what it lists, plus sorting.
    public func inspect() -> ClientInspection {
        let repo = repo
        let views = repo.syncTree.viewCaches.map { query, cache in
            ClientInspection.View(
                query: query, isComplete: cache.eventCache.isComplete, data: cache.eventCache.node,
                serverData: cache.serverCache.node, serverComplete: cache.serverCache.isComplete)
        }
        let writes = repo.writes.all.map { write in
            ClientInspection.PendingWrite(
                id: write.id.rawValue, path: write.path,
                change: {
                    switch write.change {
                    case .put(let node): .set(node)
                    case .merge(let changes): .update(changes)
                    }
                }(),
                state: write.isSent ? .sent : .queued)
        }
        let listens = repo.listens.ordered.map { ClientInspection.Listen(query: $0.query, tag: $0.tag?.rawValue) }
        let transactions = repo.transactions.all.map { record in
            let state = switch record.state {
            case .waiting: "waiting"
            case .sent: "sent"
            case .inDoubt: "in doubt"
            }
            return ClientInspection.Transaction(
                path: record.path, attempts: record.attempts, retries: record.retries, state: state, value: record.output)
        }
        let onDisconnects = repo.onDisconnects.listed.map { path, operation, registered in
            let listed: ClientInspection.OnDisconnect.Operation = switch operation {
            case .put(let node): .set(node)
            case .merge(let changes): .update(changes)
            case .cancel: .cancel
            }
            return ClientInspection.OnDisconnect(path: path, operation: listed, isRegistered: registered)
        }
        return ClientInspection(
            client: name, connection: connectionState.description, views: views, writes: writes, listens: listens,
            transactions: transactions, onDisconnects: onDisconnects)
    }
}

import GRDB

extension DatabaseQueue {
    /// Runs `body` while this connection refuses every write (`PRAGMA query_only`); the
    /// setting is restored behind whatever `body` queued on the connection.
    func refusingWrites<T>(_ body: () throws -> T) throws -> T {
        try inDatabase { try $0.execute(sql: "PRAGMA query_only = ON") }
        defer { try? inDatabase { try $0.execute(sql: "PRAGMA query_only = OFF") } }
        return try body()
    }
}

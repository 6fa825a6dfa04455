import GRDB

extension StoreLocation {
    /// Opens the SQLite database here with `configuration` and brings its schema up to date
    /// with `migrator`.
    /// - Parameter what: what the store is, for the error ("the store", "the server's store").
    /// - Throws: ``StoreError`` naming the location, or the one `configuration` threw.
    func open(_ what: String, configuration: Configuration = Configuration(), migrator: DatabaseMigrator)
        throws(StoreError) -> DatabaseQueue
    {
        do {
            let queue: DatabaseQueue
            switch self {
            case .file(let path): queue = try DatabaseQueue(path: path, configuration: configuration)
            case .memory: queue = try DatabaseQueue(configuration: configuration)
            }
            try migrator.migrate(queue)
            return queue
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("cannot open \(what) at \(self)", error)
        }
    }
}

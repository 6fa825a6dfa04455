/// A write in a client store's queue, with the row that holds it: the client passes the row
/// back when the server has answered the write, and the store deletes answered rows by ranges.
public struct QueuedWrite: Sendable, Hashable {
    /// The row in the queue's table (rows are in queue order).
    public let row: Int64
    /// The write.
    public let write: PersistedWrite

    public init(row: Int64, write: PersistedWrite) {
        self.row = row
        self.write = write
    }
}

import EmberCore

/// What the server's store kept of one writer's answered writes: its watermark and refusals.
public struct StoredWriter: Sendable, Hashable {
    /// The writer's name (`CLIENT.SESSION`).
    public let writer: String
    /// The highest write number answered.
    public let watermark: Int64
    /// The refusals kept, by write number.
    public let refusals: [Int64: DatabaseError]

    public init(writer: String, watermark: Int64, refusals: [Int64: DatabaseError]) {
        self.writer = writer
        self.watermark = watermark
        self.refusals = refusals
    }
}

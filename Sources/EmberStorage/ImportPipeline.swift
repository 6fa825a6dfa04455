import EmberCore
import Foundation

/// An import's two halves on two threads: one reads and parses the document and turns its
/// pieces into rows (``ImportBatch``), the other writes the rows into the store's transaction.
/// On two cores, the import takes about the longer of the two instead of their sum.
///
/// A bounded queue of batches joins them (``capacity``), so memory stays bounded: a producer
/// ahead of the store waits. Either side can end it: the producer with its error
/// (``finish(_:)``), the consumer by cancelling (``cancel()``), after which ``push(_:)`` throws.
final class ImportPipeline: @unchecked Sendable {
    /// The batches the queue holds at most.
    static let capacity = 4

    /// The producer was told to stop.
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private var batches: [ImportBatch] = []
    private var ended = false
    private var failure: (any Error)?
    private var cancelled = false

    /// Hands a batch to the consumer, waiting while the queue is full.
    /// - Throws: ``Cancelled`` once the consumer has cancelled.
    func push(_ batch: ImportBatch) throws {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= Self.capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        batches.append(batch)
        condition.broadcast()
    }

    /// Ends the production: with `error`, the consumer's next ``pop()`` throws it.
    func finish(_ error: (any Error)?) {
        condition.lock()
        defer { condition.unlock() }
        ended = true
        failure = error
        condition.broadcast()
    }

    /// The next batch, waiting for one; `nil` once the producer has finished without error.
    /// - Throws: the producer's error.
    func pop() throws -> ImportBatch? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !ended { condition.wait() }
        if !batches.isEmpty {
            let batch = batches.removeFirst()
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the producer (its next ``push(_:)`` throws) and drops what is queued.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        batches.removeAll()
        condition.broadcast()
    }
}

/// Rows of an import, made on the producer's thread: row paths and JSON texts ready to insert.
public struct ImportBatch: Sendable {
    /// One change to the rows.
    enum Operation: Sendable {
        /// Delete the rows at and below the row path (a name repeated: the last one wins).
        case clear(Path)
        /// Insert a row into the cleared range.
        case insert(path: String, value: String)
        /// Insert or replace a priority row (an object's, given after its children).
        case priority(path: String, value: String)
    }

    var operations: [Operation] = []
    /// How far into the document the pieces of this batch reach, in bytes.
    public internal(set) var offset = 0

    /// How many operations it holds.
    public var count: Int { operations.count }

    public init() {}

    /// Adds the rows of `piece`.
    /// - Complexity: O(r) for its r rows.
    public mutating func add(_ piece: ExportReader.Piece, offset: Int) {
        self.offset = offset
        switch piece {
        case .clear(let path):
            operations.append(.clear(path))
        case .subtree(let path, let node):
            LeafRows.forEachRow(of: node, rowPath: LeafRows.rowPath(path)) { path, value in operations.append(.insert(path: path, value: value)) }
        case .priority(let path, let priority):
            operations.append(.priority(path: LeafRows.rowPath(path.child(.priority)), value: Node(priority.leafValue).jsonString()))
        }
    }
}

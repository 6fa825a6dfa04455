import EmberCore

/// Where a change to the tree comes from.
enum OperationSource: Sendable, Hashable {
    /// A local write (set, update, transaction).
    case user
    /// The server, for every view at or below the location.
    case server
    /// The server, for the one filtered query with these parameters (a tagged update).
    case taggedQuery(QueryParams)
}

import EmberCore

/// A tree the rules read a location at a time: the server's tree, paged from its store, loads
/// each location a rule reads (`root.child('users').child(auth.uid)`) when it is read.
///
/// Only `Sendable` so that ``RuleData`` stays a value that can be kept; a reader is used on the
/// thread that owns its tree, while a check runs.
public protocol RuleTreeReader: AnyObject, Sendable {
    /// The data at `path`.
    func node(at path: Path) -> Node
}

/// How a ``Node`` is written as JSON.
public enum JSONFormat: Sendable, Hashable {
    /// What `val()` returns: no priorities, and objects whose keys are array indexes written as
    /// arrays by the "more than half" rule.
    case normal
    /// What `exportVal()` returns: priorities as `.priority` (and `.value` for leaves), and
    /// objects always as objects.
    case export
}

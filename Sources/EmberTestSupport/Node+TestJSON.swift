import EmberCore

/// A node from JSON text that a test wrote itself (a typo is a test bug: it traps).
public func json(_ text: String) -> Node {
    do {
        return try Node(jsonText: text)
    } catch {
        preconditionFailure("bad JSON in a test: \(error) in \(text)")
    }
}

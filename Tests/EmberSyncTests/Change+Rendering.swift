import EmberCore

@testable import EmberSync

extension Array where Element == Change {
    /// The changes as text, one line each, in order, so that two lists compare whole.
    var rendered: [String] {
        map { change in
            switch change {
            case .childAdded(let key, let node): "added \(key) = \(node.jsonString(.export))"
            case .childRemoved(let key, let old): "removed \(key) (was \(old.jsonString(.export)))"
            case .childChanged(let key, let node, let old): "changed \(key) = \(node.jsonString(.export)) (was \(old.jsonString(.export)))"
            case .childMoved(let key, let node): "moved \(key) = \(node.jsonString(.export))"
            case .value(let node): "value = \(node.jsonString(.export))"
            }
        }
    }
}

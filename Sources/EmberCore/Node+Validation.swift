extension Node {
    /// Checks the shape of an update at `path` that writes the relative `paths`: none is the
    /// update's own location, each full path is within ``Limits/maxDepth``, and none is written
    /// twice (one at or below another). Clients check it before applying an update locally;
    /// the server checks it again.
    /// - Throws: `invalid_value` or `path_too_deep`, naming the paths.
    /// - Complexity: O(k log k) for k paths.
    public static func validateUpdatePaths(_ paths: [Path], at path: Path) throws(DatabaseError) {
        for relative in paths {
            if relative.isEmpty { throw .invalidValue("an update cannot write its own location; use set", at: path) }
            try path.appending(relative).checkDepth()
        }
        let sorted = paths.sorted()
        for (first, second) in zip(sorted, sorted.dropFirst()) where first.contains(second) {
            throw .invalidValue("the update writes both \(first) and \(second), which is at or below it", at: path)
        }
    }

    /// Checks that the node may be written at `path`: every key valid, no value deeper than
    /// ``Limits/maxDepth``, strings within ``Limits/maxStringBytes``, numbers finite, and the
    /// same for priorities (a priority belongs to its node: it adds no level).
    ///
    /// This is the one rule for what can be stored: the server checks every write with it,
    /// after resolving server values, and the stores check every row they load with it.
    ///
    /// Nodes built from JSON are valid already; this is for data from elsewhere (a server never
    /// trusts what a client sends).
    /// - Throws: the first problem found, with the path of the offending value.
    /// - Complexity: O(n) in the size of the node.
    public func validate(at path: Path) throws(DatabaseError) {
        if path.isPriority {
            // A write to `x/.priority` sets x's priority: null, a number, a string, or a server
            // value (validation.ts, isValidPriority).
            if isEmpty { return }
            guard let leaf = leafValue, priority == nil else {
                throw .invalidPriority("a priority must be a number, a string or null", at: path.parent)
            }
            switch leaf {
            case .bool: throw .invalidPriority("a priority must be a number, a string or null, not a boolean", at: path.parent)
            case .deferred: return
            case .int, .double, .string: try Node(.bool(true), priority: Priority(leaf)).validate(at: path.parent!)
            }
            return
        }
        var keys = path.keys
        try validate(keys: &keys)
    }

    private func validate(keys: inout [ChildKey]) throws(DatabaseError) {
        if isEmpty { return }
        if keys.count > Limits.maxDepth {
            throw DatabaseError(.pathTooDeep(path: Path(keys: keys).description, depth: keys.count))
        }
        switch priority {
        case .number(let number)? where !number.isFinite:
            throw DatabaseError(.invalidPriority(reason: "\(number) is not a finite number"), path: Path(keys: keys))
        case .string(let text)? where text.utf8.count > Limits.maxStringBytes:
            throw DatabaseError(
                .invalidPriority(reason: "the string is \(text.utf8.count) bytes; the limit is \(Limits.maxStringBytes)"),
                path: Path(keys: keys))
        default:
            break
        }
        if let leaf = leafValue {
            switch leaf {
            case .double(let number) where !number.isFinite:
                throw DatabaseError(.invalidValue(reason: "\(number) is not a finite number"), path: Path(keys: keys))
            case .string(let text) where text.utf8.count > Limits.maxStringBytes:
                throw DatabaseError(
                    .invalidValue(reason: "the string is \(text.utf8.count) bytes; the limit is \(Limits.maxStringBytes)"),
                    path: Path(keys: keys))
            default:
                return
            }
        }
        for child in children {
            if let problem = child.key.problem {
                throw DatabaseError(.invalidKey(key: child.key.name, reason: problem), path: Path(keys: keys))
            }
            keys.append(child.key)
            try child.node.validate(keys: &keys)
            keys.removeLast()
        }
    }
}

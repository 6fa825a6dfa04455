extension QueryParams {
    /// The params as a JSON object in the Firebase wire protocol's words (`i` the index, `sp`/`sn`
    /// /`sin` the start's value, key and inclusiveness, `ep`/`en`/`ein` the end's, `l` the limit
    /// and `vf` the side it counts from): how a client's store keeps its tracked queries.
    public var storageNode: Node {
        var children: [(ChildKey, Node)] = []
        if let orderBy { children.append(("i", Node(.string(orderBy.wireName)))) }
        func add(_ bound: RangeBound?, _ prefix: String) {
            guard let bound else { return }
            let position = bound.position
            if let value = position.value { children.append((ChildKey(unchecked: prefix + "p"), Node(value))) }
            let name: String
            switch position.key {
            case .min: name = "[MIN_NAME]"
            case .max: name = "[MAX_NAME]"
            case .key(let key): name = key.name
            }
            children.append((ChildKey(unchecked: prefix + "n"), Node(.string(name))))
            children.append((ChildKey(unchecked: prefix + "in"), Node(.bool(bound.isInclusive))))
        }
        add(start, "s")
        add(end, "e")
        switch limit {
        case .first(let count)?:
            children.append(("l", Node(.int(Int64(count)))))
            children.append(("vf", Node(.string("l"))))
        case .last(let count)?:
            children.append(("l", Node(.int(Int64(count)))))
            children.append(("vf", Node(.string("r"))))
        case nil:
            break
        }
        return Node(children: children)
    }

    /// Params from their ``storageNode``.
    /// - Throws: `invalid_query` when the object is not one ``storageNode`` makes.
    public init(storageNode node: Node) throws(DatabaseError) {
        func string(_ key: ChildKey) throws(DatabaseError) -> String? {
            let child = node.child(key)
            if child.isEmpty { return nil }
            guard case .string(let text)? = child.leafValue else { throw .invalidQuery("a stored query's \"\(key)\" is not a string") }
            return text
        }
        var orderBy: Index?
        switch try string("i") {
        case nil: orderBy = nil
        case ".priority": orderBy = .priority
        case ".key": orderBy = .key
        case ".value": orderBy = .value
        case let path?: orderBy = .child(Path(unchecked: path))
        }
        func bound(_ prefix: String) throws(DatabaseError) -> RangeBound? {
            let inclusive = node.child(ChildKey(unchecked: prefix + "in"))
            if inclusive.isEmpty { return nil }
            guard case .bool(let isInclusive)? = inclusive.leafValue else {
                throw .invalidQuery("a stored query's \"\(prefix)in\" is not a boolean")
            }
            let key: IndexPosition.Key
            switch try string(ChildKey(unchecked: prefix + "n")) {
            case "[MIN_NAME]"?: key = .min
            case "[MAX_NAME]"?: key = .max
            case let name?: key = .key(try ChildKey(validating: name))
            case nil: throw .invalidQuery("a stored query's bound has no \"\(prefix)n\"")
            }
            let position = IndexPosition(node.child(ChildKey(unchecked: prefix + "p")).leafValue, key)
            return isInclusive ? .including(position) : .excluding(position)
        }
        var limit: QueryLimit?
        if case .int(let count)? = node.child("l").leafValue {
            limit = try string("vf") == "r" ? .last(Int(count)) : .first(Int(count))
        }
        try self.init(orderBy: orderBy, start: try bound("s"), end: try bound("e"), limit: limit)
    }
}

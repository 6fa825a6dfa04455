extension Node {
    /// Converts parsed JSON into database data, validating it for writing at `path`.
    ///
    /// `null`, `{}` and `[]` are empty; arrays become objects keyed `"0"`, `"1"`, ... (null
    /// elements do not exist); `.priority` sets a priority (a number, a string or null);
    /// `{".value": v}` is the leaf `v`; `{".sv": "timestamp"}` and
    /// `{".sv": {"increment": n}}` are server values. Objects left without children are empty.
    ///
    /// - Parameter path: where the value will be written: its depth counts towards the depth
    ///   limit, and errors name the full path of the offending value.
    /// - Throws: ``DatabaseError``: `invalid_key` for a bad member name, `path_too_deep` when a
    ///   value would sit deeper than ``Limits/maxDepth``, `invalid_value` for strings over 10 MB,
    ///   non-finite numbers or a misused `.value`/`.sv`, `invalid_priority` for a bad priority.
    /// - Complexity: O(n log n) in the number of values.
    public init(json: JSONValue, at path: Path = .root) throws(DatabaseError) {
        var keys = path.keys
        self = try Self.convert(json, keys: &keys)
    }

    /// Parses JSON text into database data (see ``init(json:at:)``).
    /// - Throws: ``DatabaseError`` `malformed_json` with line and column, or a validation error.
    public init(jsonText: String, at path: Path = .root) throws(DatabaseError) {
        try self.init(json: try JSONParser.parse(jsonText), at: path)
    }

    private static func convert(_ json: JSONValue, keys: inout [ChildKey]) throws(DatabaseError) -> Node {
        switch json {
        case .null:
            return .empty
        case .bool(let flag):
            return try leaf(.bool(flag), keys: keys)
        case .int(let number):
            return try leaf(.int(number), keys: keys)
        case .double(let number):
            guard let value = LeafValue(normalizing: number) else {
                throw DatabaseError(.invalidValue(reason: "\(number) is not a finite number"), path: Path(keys: keys))
            }
            return try leaf(value, keys: keys)
        case .string(let text):
            let size = text.utf8.count
            if size > Limits.maxStringBytes {
                throw DatabaseError(
                    .invalidValue(reason: "a string is at most \(Limits.maxStringBytes) bytes of UTF-8, this one has \(size)"),
                    path: Path(keys: keys))
            }
            return try leaf(.string(text), keys: keys)
        case .array(let elements):
            var node = Node.empty
            for (offset, element) in elements.enumerated() {
                let key = ChildKey(Int32(offset))
                keys.append(key)
                let child = try convert(element, keys: &keys)
                keys.removeLast()
                node.setChild(key, child)
            }
            return node
        case .object(let members):
            return try convertObject(members, keys: &keys)
        }
    }

    private static func convertObject(
        _ members: [(key: String, value: JSONValue)], keys: inout [ChildKey]
    ) throws(DatabaseError) -> Node {
        var priority: Priority?
        var value: JSONValue?
        var serverValue: JSONValue?
        var node = Node.empty
        for (name, member) in members {
            switch name {
            case ".priority":
                priority = try convertPriority(member, keys: keys)
            case ".value":
                if member != .null { value = member }
            case ".sv":
                serverValue = member
            default:
                let key: ChildKey
                do {
                    key = try ChildKey(validating: name)
                } catch {
                    throw error.at(Path(keys: keys))
                }
                keys.append(key)
                let child = try convert(member, keys: &keys)
                keys.removeLast()
                node.setChild(key, child)
            }
        }
        let location = Path(keys: keys)
        if let serverValue {
            guard members.count == 1 else {
                throw DatabaseError(.invalidValue(reason: "a server value {\".sv\": ...} must have no other members"), path: location)
            }
            return try leaf(.deferred(try convertServerValue(serverValue, at: location)), keys: keys)
        }
        if let value {
            guard node.isEmpty else {
                throw DatabaseError(.invalidValue(reason: "an object with \".value\" must have no other children"), path: location)
            }
            switch value {
            case .object(let inner) where inner.count == 1 && inner[0].key == ".sv":
                // A server value may stand as ".value" (with a ".priority" beside it), as the
                // SDKs accept: {".value": {".sv": "timestamp"}, ".priority": ...}.
                node = try convert(value, keys: &keys)
            case .array, .object:
                throw DatabaseError(.invalidValue(reason: "\".value\" must be a boolean, number, string or server value"), path: location)
            default:
                node = try convert(value, keys: &keys)
            }
        }
        return node.withPriority(priority)
    }

    /// The priority `json` gives the node at `path`, as a write's `.priority` member: a number,
    /// a string, a server value, or `nil` for null.
    /// - Throws: `invalid_priority` for anything else.
    public static func priority(json: JSONValue, at path: Path) throws(DatabaseError) -> Priority? {
        try convertPriority(json, keys: path.keys)
    }

    private static func leaf(_ value: LeafValue, keys: [ChildKey]) throws(DatabaseError) -> Node {
        if keys.count > Limits.maxDepth {
            throw DatabaseError(.pathTooDeep(path: Path(keys: keys).description, depth: keys.count))
        }
        return Node(value)
    }

    private static func convertPriority(_ json: JSONValue, keys: [ChildKey]) throws(DatabaseError) -> Priority? {
        switch json {
        case .null: return nil
        case .int(let number): return .number(Double(number))
        case .double(let number) where number.isFinite: return .number(number)
        case .string(let text): return .string(text)
        case .object(let members) where members.count == 1 && members[0].key == ".sv":
            // A server value as a priority (validation.ts isValidPriority).
            return .deferred(try convertServerValue(members[0].value, at: Path(keys: keys)))
        default:
            throw DatabaseError(
                .invalidPriority(reason: "a priority must be a number, a string, a server value or null, not \(json.serialized())"),
                path: Path(keys: keys))
        }
    }

    private static func convertServerValue(_ json: JSONValue, at path: Path) throws(DatabaseError) -> ServerValue {
        if json == .string("timestamp") { return .timestamp }
        if case .object(let members) = json, members.count == 1, members[0].key == "increment" {
            switch members[0].value {
            case .int(let delta): return .increment(.int(delta))
            case .double(let delta):
                if let value = LeafValue(normalizing: delta) { return .increment(value) }
            default: break
            }
            throw DatabaseError(.invalidValue(reason: "increment takes a finite number"), path: path)
        }
        throw DatabaseError(
            .invalidValue(reason: "unknown server value \(json.serialized()); use \"timestamp\" or {\"increment\": n}"),
            path: path)
    }

    // MARK: Writing

    /// The node as JSON text.
    /// - Complexity: O(n).
    public func jsonString(_ format: JSONFormat = .normal, pretty: Bool = false) -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.write(self, format: format)
        return writer.output
    }

    /// The node as a JSON value.
    /// - Complexity: O(n).
    public func jsonValue(_ format: JSONFormat = .normal) -> JSONValue {
        switch base {
        case .empty:
            return .null
        case .leaf(let value):
            let json = value.jsonValue
            if format == .export, let priority {
                return .object([(".value", json), (".priority", priority.leafValue.jsonValue)])
            }
            return json
        default:
            if format == .normal, let length = arrayLength {
                var elements = [JSONValue](repeating: .null, count: length)
                for child in children { elements[Int(child.key.integerValue!)] = child.node.jsonValue(format) }
                return .array(elements)
            }
            var members = children.map { (key: $0.key.name, value: $0.node.jsonValue(format)) }
            if format == .export, let priority {
                members.append((".priority", priority.leafValue.jsonValue))
            }
            return .object(members)
        }
    }

    /// When this object renders as an array in normal form, the array's length.
    ///
    /// The rule every SDK implements: every key is a non-negative integer written without
    /// leading zeros, and the largest key is less than twice the number of children. Missing
    /// indexes render as `null`.
    /// - Complexity: O(n).
    public var arrayLength: Int? {
        let count = childCount
        guard count > 0 else { return nil }
        var maxKey: Int32 = -1
        for child in children {
            guard case .integer(let value) = child.key.storage, value >= 0 else { return nil }
            maxKey = max(maxKey, value)
        }
        return Int(maxKey) < 2 * count ? Int(maxKey) + 1 : nil
    }
}

extension Node: CustomStringConvertible {
    /// The node as compact JSON in export form (so priorities show).
    public var description: String { jsonString(.export) }
}

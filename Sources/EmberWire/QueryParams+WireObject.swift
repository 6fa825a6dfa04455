import EmberCore

extension QueryParams {
    /// Params from the query object of a listen or a get in the realtime protocol (`q`): `i` the
    /// index, `sp`/`sn`/`sin` the start's value, key and inclusiveness, `ep`/`en`/`ein` the
    /// end's, `l` the limit and `vf` its side.
    ///
    /// Read as Firebase's clients write it (firebase-js-sdk `core/view/QueryParams.ts`,
    /// `queryParamsGetQueryObject`): a start without `sn` starts before every key
    /// (`[MIN_NAME]`), an end without `en` ends after every key (`[MAX_NAME]`), and a bound
    /// without `sin`/`ein` is inclusive (the Web SDK 9 writes `startAfter` as `startAt` of the
    /// key's `successor`). `{}` and `null` are the default query.
    /// - Throws: `invalid_query` naming the member that is not what the protocol allows.
    public init(wireObject: JSONValue) throws(DatabaseError) {
        guard case .object = wireObject else {
            if case .null = wireObject { self = .default; return }
            throw .invalidQuery("a query object must be a JSON object, not \(wireObject.serialized())")
        }
        func string(_ key: String) throws(DatabaseError) -> String? {
            switch wireObject[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case let other?: throw .invalidQuery("the query's \"\(key)\" must be a string, not \(other.serialized())")
            }
        }
        func flag(_ key: String) throws(DatabaseError) -> Bool {
            switch wireObject[key] {
            case nil, .null?: return true
            case .bool(let value)?: return value
            case let other?: throw .invalidQuery("the query's \"\(key)\" must be a boolean, not \(other.serialized())")
            }
        }
        func leaf(_ key: String) throws(DatabaseError) -> LeafValue? {
            switch wireObject[key] {
            case nil, .null?: return nil
            case .bool(let value)?: return .bool(value)
            case .int(let value)?: return .int(value)
            case .double(let value)?:
                guard let leaf = LeafValue(normalizing: value) else { throw .invalidQuery("the query's \"\(key)\" is not a finite number") }
                return leaf
            case .string(let text)?: return .string(text)
            case let other?: throw .invalidQuery("the query's \"\(key)\" must be null, a boolean, a number or a string, not \(other.serialized())")
            }
        }
        // A bound's name is a position between keys, not a key to write: the Web SDK sends the
        // `predecessor` or `successor` of a key for endBefore and startAfter
        // (firebase-js-sdk `core/util/NextPushId.ts`), which may be 786 characters long, longer
        // than a key may be; it is compared, never validated as a key.
        func bound(_ prefix: String, defaultKey: IndexPosition.Key, index: Index) throws(DatabaseError) -> RangeBound? {
            guard wireObject[prefix + "p"] != nil else { return nil }
            let key: IndexPosition.Key
            switch try string(prefix + "n") {
            case nil: key = defaultKey
            case "[MIN_NAME]"?: key = .min
            case "[MAX_NAME]"?: key = .max
            case let name?: key = .key(ChildKey(unchecked: name))
            }
            var position = IndexPosition(try leaf(prefix + "p"), key)
            // Under key order the value is the key; the Web SDK writes endBefore of the first
            // integer key as the value `[MIN_NAME]` (and startAfter of the last possible key as
            // `[MAX_NAME]`), which its `nameCompare` puts before (after) every key.
            if index == .key, case .string(let name)? = position.value {
                switch name {
                case "[MIN_NAME]": position = IndexPosition(nil, .min)
                case "[MAX_NAME]": position = IndexPosition(nil, .max)
                default: break
                }
            }
            return try flag(prefix + "in") ? .including(position) : .excluding(position)
        }
        var orderBy: Index?
        switch try string("i") {
        case nil, ".priority"?: orderBy = nil
        case ".key"?: orderBy = .key
        case ".value"?: orderBy = .value
        case let path?:
            let childPath = try Path(validating: path)
            guard !childPath.isEmpty else { throw .invalidQuery("the query's index \"\(path)\" names no child") }
            orderBy = .child(childPath)
        }
        var limit: QueryLimit?
        switch wireObject["l"] {
        case nil, .null?: limit = nil
        case .int(let count)?:
            guard count > 0, count <= Int64(Int32.max) else { throw .invalidQuery("the query's limit must be a positive integer, not \(count)") }
            switch try string("vf") {
            case "r"?: limit = .last(Int(count))
            case nil, "l"?: limit = .first(Int(count))
            case let side?: throw .invalidQuery("the query's \"vf\" must be \"l\" or \"r\", not \"\(side)\"")
            }
        case let other?: throw .invalidQuery("the query's limit must be a positive integer, not \(other.serialized())")
        }
        let index = orderBy ?? .priority
        try self.init(
            orderBy: orderBy, start: try bound("s", defaultKey: .min, index: index), end: try bound("e", defaultKey: .max, index: index),
            limit: limit)
    }

    /// The query object of the realtime protocol, written as the Web SDK writes it: names only
    /// where a bound has one, `sin`/`ein` only for an exclusive bound, `i` unless the order is
    /// by priority. `{}` for the default query.
    public var wireObject: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        func add(_ bound: RangeBound?, _ prefix: String, defaultKey: IndexPosition.Key) {
            guard let bound else { return }
            let position = bound.position
            if orderBy == .key, position.value == nil {
                // A key-order bound before or after every key, as the Web SDK writes it.
                members.append((prefix + "p", .string(position.key == .max ? "[MAX_NAME]" : "[MIN_NAME]")))
                if !bound.isInclusive { members.append((prefix + "in", .bool(false))) }
                return
            }
            members.append((prefix + "p", position.value?.jsonValue ?? .null))
            switch position.key {
            case defaultKey: break
            case .min: members.append((prefix + "n", .string("[MIN_NAME]")))
            case .max: members.append((prefix + "n", .string("[MAX_NAME]")))
            case .key(let key): members.append((prefix + "n", .string(key.name)))
            }
            if !bound.isInclusive { members.append((prefix + "in", .bool(false))) }
        }
        add(start, "s", defaultKey: .min)
        add(end, "e", defaultKey: .max)
        switch limit {
        case .first(let count)?: members += [("l", .int(Int64(count))), ("vf", .string("l"))]
        case .last(let count)?: members += [("l", .int(Int64(count))), ("vf", .string("r"))]
        case nil: break
        }
        if let orderBy, orderBy != .priority { members.append(("i", .string(orderBy.wireName))) }
        return .object(members)
    }
}

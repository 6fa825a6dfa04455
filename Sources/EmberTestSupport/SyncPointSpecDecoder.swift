import EmberCore
import EmberSync

/// Turns the parsed fixture into ``SyncPointSpecCase`` values, rejecting step types, event types
/// and members it does not know (as the JS runner does).
enum SyncPointSpecDecoder {
    /// The cases of a parsed spec file: a JSON array of cases with unique names.
    static func cases(_ json: JSONValue) throws -> [SyncPointSpecCase] {
        guard case .array(let elements) = json else {
            throw SyncPointSpecError("the spec file must hold a JSON array of cases, not \(SyncPointSpecObject.describe(json))")
        }
        var names: Set<String> = []
        var cases: [SyncPointSpecCase] = []
        for (index, element) in elements.enumerated() {
            let testCase = try self.testCase(element, index: index)
            guard names.insert(testCase.name).inserted else {
                throw SyncPointSpecError("case \(index): the name \"\(testCase.name)\" is used by an earlier case")
            }
            cases.append(testCase)
        }
        return cases
    }

    /// One case: `name`, `steps` and an optional `.comment`.
    static func testCase(_ json: JSONValue, index: Int) throws -> SyncPointSpecCase {
        var object = try SyncPointSpecObject(json, context: "case \(index)")
        let name = try object.string("name")
        object.context = "case \(index) \"\(name)\""
        let comment = try object.optionalString(".comment")
        let stepValues = try object.array("steps")
        try object.finish()
        var steps: [SyncPointSpecStep] = []
        for (stepIndex, value) in stepValues.enumerated() {
            steps.append(try step(value, context: "\(object.context), step \(stepIndex)"))
        }
        return SyncPointSpecCase(name: name, comment: comment, steps: steps)
    }

    /// One step: `type`, `events`, the members its type allows, and optional `.comment`/`debug`.
    static func step(_ json: JSONValue, context: String) throws -> SyncPointSpecStep {
        var object = try SyncPointSpecObject(json, context: context)
        let type = try object.string("type")
        object.context = "\(context) (\(type))"
        let comment = try object.optionalString(".comment")
        _ = object.optional("debug")
        var events: [SyncPointSpecEvent] = []
        for (eventIndex, value) in try object.array("events").enumerated() {
            events.append(try event(value, context: "\(object.context), event \(eventIndex)"))
        }
        let action = try self.action(type, &object)
        try object.finish()
        return SyncPointSpecStep(action: action, comment: comment, events: events)
    }

    /// The operation of a step of type `type`, read from the step's members.
    static func action(_ type: String, _ object: inout SyncPointSpecObject) throws -> SyncPointSpecStep.Action {
        let context = object.context
        switch type {
        case "listen":
            let path = try object.path("path")
            let params = object.optional("params")
            let callbackID = try object.optionalInt("callbackId")
            let query = try params.map { try self.query($0, context: "\(context), params") }
            return .listen(path: path, query: query, callbackID: callbackID)
        case "unlisten":
            let path = try object.path("path")
            return .unlisten(path: path, callbackID: try object.int("callbackId"))
        case "serverUpdate":
            let path = try object.path("path")
            let data = try node(try object.required("data"), context: "\(context), data")
            return .serverUpdate(path: path, data: data, tag: try object.optionalInt("tag"))
        case "serverMerge":
            let path = try object.path("path")
            let changes = try self.changes(try object.required("data"), context: "\(context), data")
            return .serverMerge(path: path, changes: changes, tag: try object.optionalInt("tag"))
        case "set":
            let path = try object.path("path")
            let data = try node(try object.required("data"), context: "\(context), data")
            return .set(path: path, data: data, visible: try object.optionalBool("visible") ?? true)
        case "update":
            let path = try object.path("path")
            return .update(path: path, changes: try changes(try object.required("data"), context: "\(context), data"))
        case "ackUserWrite":
            let writeID = try object.int("writeId")
            return .ackUserWrite(writeID: writeID, revert: try object.optionalBool("revert") ?? false)
        case "suppressWarning":
            return .suppressWarning
        default:
            throw SyncPointSpecError("\(context): unknown step type \"\(type)\"")
        }
    }

    /// An expected event: `type`, `path`, `data`, and `name`/`prevName` where given.
    static func event(_ json: JSONValue, context: String) throws -> SyncPointSpecEvent {
        var object = try SyncPointSpecObject(json, context: context)
        let typeName = try object.string("type")
        guard let type = EventType(rawValue: typeName) else {
            throw SyncPointSpecError("\(context): unknown event type \"\(typeName)\"")
        }
        let path = try object.path("path")
        let name = try object.optionalString("name")
        let prevName = try object.optionalString("prevName")
        let data = try node(try object.required("data"), context: "\(context), data")
        try object.finish()
        return SyncPointSpecEvent(type: type, path: path, name: name, prevName: prevName, data: data)
    }

    /// A listen step's `params`: a required `tag`, then the query, built in the fixed order
    /// orderBy* → startAt/startAfter → endAt/endBefore → equalTo → limitToFirst → limitToLast.
    static func query(_ json: JSONValue, context: String) throws -> SyncPointSpecStep.Query {
        var object = try SyncPointSpecObject(json, context: context)
        let tag = try object.int("tag")
        let orderByChild = try object.optionalString("orderBy")
        let orderByKey = try object.optionalBool("orderByKey") ?? false
        let orderByPriority = try object.optionalBool("orderByPriority") ?? false
        var bounds: [(name: String, value: LeafValue?, key: ChildKey?)] = []
        for name in ["startAt", "startAfter", "endAt", "endBefore", "equalTo"] {
            guard let json = object.optional(name) else { continue }
            let bound = try self.bound(json, context: "\(context).\(name)")
            bounds.append((name, bound.value, bound.key))
        }
        let limitToFirst = try object.optionalInt("limitToFirst")
        let limitToLast = try object.optionalInt("limitToLast")
        try object.finish()
        do {
            var params = QueryParams()
            if let orderByChild { params = try params.orderedBy(.child(Path(unchecked: orderByChild))) }
            if orderByKey { params = try params.orderedBy(.key) }
            if orderByPriority { params = try params.orderedBy(.priority) }
            for bound in bounds {
                switch bound.name {
                case "startAt": params = try params.startingAt(bound.value, key: bound.key)
                case "startAfter": params = try params.startingAfter(bound.value, key: bound.key)
                case "endAt": params = try params.endingAt(bound.value, key: bound.key)
                case "endBefore": params = try params.endingBefore(bound.value, key: bound.key)
                default: params = try params.equalTo(bound.value, key: bound.key)
                }
            }
            if let limitToFirst { params = try params.limitedToFirst(limitToFirst) }
            if let limitToLast { params = try params.limitedToLast(limitToLast) }
            return SyncPointSpecStep.Query(params: params, tag: tag)
        } catch {
            throw SyncPointSpecError("\(context): the query is not valid: \(error)")
        }
    }

    /// A bound `{"index": V, "name": K?}`; `V` null means no value (under orderByKey, `V` is the key).
    static func bound(_ json: JSONValue, context: String) throws -> (value: LeafValue?, key: ChildKey?) {
        var object = try SyncPointSpecObject(json, context: context)
        let value = try leafValue(try object.required("index"), context: "\(context).index")
        let name = try object.optionalString("name")
        try object.finish()
        return (value, name.map { ChildKey(unchecked: $0) })
    }

    /// A bound's index value: `null` (none), a boolean, a number or a string.
    static func leafValue(_ json: JSONValue, context: String) throws -> LeafValue? {
        switch json {
        case .null: return nil
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(number)
        case .string(let text): return .string(text)
        case .double(let number):
            if let value = LeafValue(normalizing: number) { return value }
        case .array, .object:
            break
        }
        throw SyncPointSpecError("\(context): a bound must be null, a boolean, a number or a string, not \(SyncPointSpecObject.describe(json))")
    }

    /// The members of a merge's `data` object, in order: relative path → value.
    static func changes(_ json: JSONValue, context: String) throws -> [SyncPointSpecStep.Change] {
        guard case .object(let members) = json else {
            throw SyncPointSpecError("\(context): a merge's data must be an object, not \(SyncPointSpecObject.describe(json))")
        }
        return try members.map { member in
            SyncPointSpecStep.Change(
                path: Path(unchecked: member.key), node: try node(member.value, context: "\(context).\(member.key)"))
        }
    }

    /// Fixture data as a node (nodeFromJSON: `null` empty, `.priority` and `.value` honoured).
    static func node(_ json: JSONValue, context: String) throws -> Node {
        do {
            return try Node(json: json)
        } catch {
            throw SyncPointSpecError("\(context): not valid data: \(error)")
        }
    }
}

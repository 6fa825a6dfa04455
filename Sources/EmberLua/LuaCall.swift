import EmberClient
import EmberCore
import EmberSync

/// The stack of one call from Lua into a Swift ``LuaBinding``: reads its arguments with
/// messages that name the function and the argument, and pushes its results.
///
/// Reading never raises. Pushing allocates, which is safe here: bindings run inside the C
/// trampoline with the memory limit suspended (see `CLuaSupport.h`).
struct LuaCall {
    /// The running thread's stack.
    let thread: LuaState.Thread
    /// The runtime the binding belongs to.
    unowned let runtime: LuaRuntime
    /// How scripts write the function, for messages (`ref:set`, `ember.sleep`).
    let name: String
    /// Whether the function is a method (`ref:set`): argument 1 is `self`, and messages count
    /// the arguments after it.
    let isMethod: Bool

    /// How many arguments the call has.
    var count: Int32 { thread.top }

    /// Whether argument `index` is missing or `nil`.
    func isAbsent(_ index: Int32) -> Bool { thread.type(at: index).isAbsent }

    /// The Lua type of argument `index`.
    func type(at index: Int32) -> LuaState.ValueType { thread.type(at: index) }

    /// The Lua type name of argument `index` ("no value" when missing), objects by their class.
    func typeName(at index: Int32) -> String {
        if let object = thread.objectType(at: index) { return object.name }
        if thread.isNull(at: index) { return "ember.null" }
        return thread.typeName(at: index)
    }

    /// An error about argument `index`: "ref:set: argument 1: expected a number, got a table",
    /// with the code `invalid_argument` unless given another.
    func error(at index: Int32, _ problem: String, code: String = ErrorCode.invalidArgument) -> LuaBindingError {
        if isMethod && index == 1 {
            return LuaBindingError(code: code, "\(name): \(problem) (call it with ':', as \(name)(...))")
        }
        return LuaBindingError(code: code, "\(name): argument \(isMethod ? index - 1 : index): \(problem)")
    }

    /// An error for argument `index` being of the wrong type.
    func wrongType(at index: Int32, expected: String) -> LuaBindingError {
        error(at: index, "expected \(expected), got \(typeName(at: index))")
    }

    /// A general error of this function: "ref:set: message".
    func failure(code: String, _ message: String) -> LuaBindingError { LuaBindingError(code: code, "\(name): \(message)") }

    /// A database error as this function's error: its code and path, and "ref:set: message".
    func failure(_ error: DatabaseError) -> LuaBindingError {
        LuaBindingError(code: error.code, "\(name): \(error.message)", path: error.path)
    }

    // MARK: objects

    /// The Swift object held by argument `index` when it is of `type`.
    func object<Object: AnyObject>(_ type: LuaObjectType, at index: Int32, as: Object.Type = Object.self) -> Object? {
        thread.object(type, at: index)
    }

    /// Argument `index` as a reference.
    func reference(at index: Int32) throws(LuaBindingError) -> Reference {
        guard let box = object(.reference, at: index, as: LuaBox<Reference>.self) else {
            throw wrongType(at: index, expected: "a Reference")
        }
        return box.value
    }

    /// Argument `index` as a query (a reference is the query of its whole location).
    func query(at index: Int32) throws(LuaBindingError) -> Query {
        if let box = object(.query, at: index, as: LuaBox<Query>.self) { return box.value }
        if let box = object(.reference, at: index, as: LuaBox<Reference>.self) { return box.value.query }
        throw wrongType(at: index, expected: "a Reference or a Query")
    }

    /// Argument `index` as a snapshot.
    func snapshot(at index: Int32) throws(LuaBindingError) -> DataSnapshot {
        guard let box = object(.snapshot, at: index, as: LuaBox<DataSnapshot>.self) else {
            throw wrongType(at: index, expected: "a DataSnapshot")
        }
        return box.value
    }

    /// Argument `index` as a client.
    func database(at index: Int32) throws(LuaBindingError) -> Database {
        guard let database = object(.database, at: index, as: Database.self) else {
            throw wrongType(at: index, expected: "a Database")
        }
        return database
    }

    // MARK: scalars

    /// Argument `index` as a string (numbers are not converted).
    func string(at index: Int32, expected: String = "a string") throws(LuaBindingError) -> String {
        guard thread.type(at: index) == .string else { throw wrongType(at: index, expected: expected) }
        guard let text = thread.string(at: index) else { throw error(at: index, "the string is not UTF-8") }
        return text
    }

    /// Argument `index` as a string, or `nil` when absent.
    func optionalString(at index: Int32) throws(LuaBindingError) -> String? {
        isAbsent(index) ? nil : try string(at: index)
    }

    /// Argument `index` as an integer (an integral float is accepted).
    func integer(at index: Int32, expected: String = "an integer") throws(LuaBindingError) -> Int64 {
        guard thread.type(at: index) == .number else { throw wrongType(at: index, expected: expected) }
        if thread.isInteger(at: index) { return thread.integer(at: index) }
        let number = thread.number(at: index)
        guard number.rounded() == number, let integer = Int64(exactly: number) else {
            throw error(at: index, "expected \(expected), got \(number)")
        }
        return integer
    }

    /// Argument `index` as a number.
    func number(at index: Int32) throws(LuaBindingError) -> Double {
        guard thread.type(at: index) == .number else { throw wrongType(at: index, expected: "a number") }
        return thread.number(at: index)
    }

    /// Argument `index` as a boolean (absent is `defaultValue`).
    func boolean(at index: Int32, default defaultValue: Bool) throws(LuaBindingError) -> Bool {
        if isAbsent(index) { return defaultValue }
        guard thread.type(at: index) == .boolean else { throw wrongType(at: index, expected: "a boolean") }
        return thread.isTrue(at: index)
    }

    /// Argument `index` as JSON (LUA.md's rules: `nil` and `ember.null` are null, server values
    /// their placeholders).
    func json(at index: Int32) throws(LuaBindingError) -> JSONValue {
        do {
            return try thread.json(at: index)
        } catch {
            throw self.error(at: index, error.message(), code: ErrorCode.invalidValue)
        }
    }

    /// Argument `index` as a value a query can start or end at: `nil`, a boolean, a number or a
    /// string.
    func leaf(at index: Int32) throws(LuaBindingError) -> LeafValue? {
        switch thread.type(at: index) {
        case .noValue, .nil: return nil
        case .boolean: return .bool(thread.isTrue(at: index))
        case .number:
            if thread.isInteger(at: index) { return .int(thread.integer(at: index)) }
            let number = thread.number(at: index)
            guard number.isFinite else { throw error(at: index, "the number must be finite") }
            return LeafValue(normalizing: number) ?? .double(number)
        case .string: return .string(try string(at: index))
        default:
            if thread.isNull(at: index) { return nil }
            throw wrongType(at: index, expected: "nil, a boolean, a number or a string")
        }
    }

    /// Argument `index` as a priority: `nil`, a number, a string, or a server value
    /// (`ember.ServerValue.TIMESTAMP`), as Firebase accepts (validation.ts `isValidPriority`).
    func priority(at index: Int32) throws(LuaBindingError) -> Priority? {
        if let serverValue = object(.serverValue, at: index, as: LuaServerValue.self) {
            guard case .deferred(let value)? = (try? Node(json: serverValue.json))?.leafValue else {
                throw wrongType(at: index, expected: "a priority (nil, a number, a string or a server value)")
            }
            return .deferred(value)
        }
        switch thread.type(at: index) {
        case .boolean, .table, .function, .thread:
            throw wrongType(at: index, expected: "a priority (nil, a number, a string or a server value)")
        default:
            break
        }
        switch try leaf(at: index) {
        case nil: return nil
        case let leaf?:
            guard let priority = Priority(leaf) else {
                throw wrongType(at: index, expected: "a priority (nil, a number, a string or a server value)")
            }
            return priority
        }
    }

    /// Argument `index` as an event type name ("value", "child_added", ...).
    func eventType(at index: Int32) throws(LuaBindingError) -> EventType {
        let text = try string(at: index, expected: "an event name")
        guard let type = EventType(rawValue: text) else {
            throw error(at: index, "unknown event '\(text)' (value, child_added, child_changed, child_removed, child_moved)")
        }
        return type
    }

    /// A registry reference to the function at `index` (the caller releases it).
    func function(at index: Int32) throws(LuaBindingError) -> Int32 {
        guard thread.type(at: index) == .function else { throw wrongType(at: index, expected: "a function") }
        return runtime.anchor(valueAt: index, in: thread)
    }

    /// The raw field `key` of the table at `index` (metamethods are not run), pushed; returns
    /// its type.
    func pushField(_ key: String, ofTableAt index: Int32) -> LuaState.ValueType {
        thread.pushRawField(key, ofTableAt: index)
    }

    // MARK: results

    /// Pushes `nil`.
    func pushNil() { thread.pushNil() }

    /// Pushes a boolean.
    func push(_ flag: Bool) { thread.push(flag) }

    /// Pushes an integer.
    func push(_ integer: Int64) { thread.push(integer) }

    /// Pushes a string, or `nil`.
    func push(_ text: String?) {
        if let text { thread.push(string: text) } else { thread.pushNil() }
    }

    /// Pushes a JSON value (null is `nil`; `ember.null` inside tables).
    func push(json value: JSONValue) throws(LuaBindingError) {
        do {
            try thread.push(json: value)
        } catch {
            throw failure(code: ErrorCode.invalidValue, error.message())
        }
    }

    /// Pushes an error object for `error` (an error object, see `LuaState+Errors.swift`), or `nil`.
    func push(error: DatabaseError?) {
        if let error { thread.push(error: error) } else { thread.pushNil() }
    }

    /// Pushes a Swift object as a userdata of `type` (retained until Lua collects it).
    func push(object: AnyObject, as type: LuaObjectType) {
        thread.push(object: object, as: type)
    }

    /// Pushes a reference.
    func push(_ reference: Reference) { push(object: LuaBox(reference), as: .reference) }

    /// Pushes a query.
    func push(_ query: Query) { push(object: LuaBox(query), as: .query) }

    /// Pushes a snapshot.
    func push(_ snapshot: DataSnapshot) { push(object: LuaBox(snapshot), as: .snapshot) }

    /// Pushes the value a registry reference holds.
    func push(registryReference reference: Int32) { thread.pushReference(reference) }
}

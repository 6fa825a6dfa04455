import EmberCore

/// Evaluates a checked rule expression against a ``RuleContext``.
///
/// JavaScript's semantics where Firebase keeps them (`+` joins strings and numbers, `===` and
/// `==` compare strictly) and Firebase's where it differs (dividing by zero gives NaN; a member
/// of null is null but calling a method on it, comparing it with `<`, or adding it is an error).
/// An error anywhere ends the evaluation: the rule is false, even under `||`.
struct RuleEvaluator {
    /// What every rule of one check shares: who, when, the data, the query.
    let context: RuleContext
    /// The rule's location (`data`, `newData`).
    let path: Path
    /// The keys the wildcards above the rule matched.
    let captures: RuleCaptures
    /// When set, each compound sub-expression's source range and value, in the order evaluated
    /// (what `explain` shows).
    var trace: [(range: Range<Int>, value: RuleValue)]?
    /// The data at the rule's location before and after the write, once read.
    private var dataNode: Node?
    private var newDataNode: Node?
    /// Every location whose data the evaluation read (what a kept check holds).
    var reads: RuleReads

    init(context: RuleContext, tracing: Bool = false, reads: RuleReads = RuleReads()) {
        self.init(context: context, path: context.path, captures: context.captures, tracing: tracing, reads: reads)
    }

    /// An evaluator of a rule at `path`, sharing `context` with the other rules of its check
    /// (one context per check, not one per rule).
    init(context: RuleContext, path: Path, captures: RuleCaptures, tracing: Bool, reads: RuleReads) {
        self.context = context
        self.path = path
        self.captures = captures
        self.reads = reads
        trace = tracing ? [] : nil
    }

    /// The rule's verdict.
    /// - Throws: ``RuleRuntimeError`` when the evaluation fails or the result is not a boolean.
    mutating func verdict(_ expression: RuleExpression) throws(RuleRuntimeError) -> Bool {
        guard case .boolean(let result) = try evaluate(expression) else {
            throw RuleRuntimeError("the rule's value is not true or false")
        }
        return result
    }

    private mutating func record(_ range: Range<Int>, _ value: RuleValue) -> RuleValue {
        trace?.append((range, value))
        return value
    }

    mutating func evaluate(_ expression: RuleExpression) throws(RuleRuntimeError) -> RuleValue {
        switch expression {
        case .null: return .null
        case .boolean(let value): return .boolean(value)
        case .number(let value): return .number(value)
        case .string(let value): return .string(value)
        case .regex, .array: throw RuleRuntimeError("a regular expression or an array is not a value")
        case .variable(let name): return try variable(name)
        case .capture(let name):
            guard let key = captures[name] else { throw RuleRuntimeError("\(name) matched nothing") }
            return .string(key)
        case .member(let base, let name, let range):
            return record(range, try member(name, of: try evaluate(base)))
        case .index(let base, let key, let range):
            let baseValue = try evaluate(base)
            guard case .string(let name) = try evaluate(key) else { throw RuleRuntimeError("a key must be a string") }
            return record(range, try member(name, of: baseValue))
        case .call(let callee, let arguments, let range):
            let (base, name) = try method(callee)
            return record(range, try call(name, on: base, arguments))
        case .unary(let op, let operand, let range):
            let value = try evaluate(operand)
            switch (op, value) {
            case ("!", .boolean(let bool)): return record(range, .boolean(!bool))
            case ("-", .number(let number)): return record(range, .number(-number))
            default: throw RuleRuntimeError("\(op) cannot apply to \(value.kind)")
            }
        case .binary(let op, let left, let right, let range):
            return record(range, try binary(op, left, right))
        case .conditional(let condition, let then, let otherwise, let range):
            guard case .boolean(let holds) = try evaluate(condition) else {
                throw RuleRuntimeError("the condition of ? : is not true or false")
            }
            return record(range, try evaluate(holds ? then : otherwise))
        }
    }

    private mutating func variable(_ name: String) throws(RuleRuntimeError) -> RuleValue {
        switch name {
        case "auth": return context.auth.map(RuleValue.init) ?? .null
        case "now": return .number(Double(context.now))
        case "root": return .snapshot(RuleSnapshot(context.root, .before, path: .root))
        case "data": return .snapshot(RuleSnapshot(context.root, .before, path: path))
        case "newData":
            guard let newRoot = context.newRoot else { throw RuleRuntimeError("newData exists only when writing") }
            return .snapshot(RuleSnapshot(newRoot, .after, path: path))
        case "query": return .query(context.query)
        default: throw RuleRuntimeError("unknown variable \(name)")
        }
    }

    /// The data of `snapshot`, noted as read. The rule's own location (`data`, `newData`) is
    /// looked up once per evaluation, however often the rule reads it.
    private mutating func read(_ snapshot: RuleSnapshot) -> Node {
        let own = snapshot.path == path
        if own, let cached = snapshot.version == .before ? dataNode : newDataNode { return cached }
        let node = snapshot.node
        reads.record(node, at: snapshot.path, of: snapshot.version)
        if own {
            if snapshot.version == .before { dataNode = node } else { newDataNode = node }
        }
        return node
    }

    /// A member that is not called: a property of an object, a string's length, a query's.
    private func member(_ name: String, of base: RuleValue) throws(RuleRuntimeError) -> RuleValue {
        switch base {
        case .object(.object(let members)):
            return members.first { $0.key == name }.map { RuleValue($0.value) } ?? .null
        case .object:
            return .null
        case .null:
            if name == "length" { throw RuleRuntimeError("null has no length") }
            return .null
        case .string(let text):
            guard name == "length" else { throw RuleRuntimeError("a string has no member \(name)") }
            return .number(Double(text.utf16.count))
        case .query(let query):
            guard let value = query.property(name) else { throw RuleRuntimeError("query has no property \(name)") }
            return value
        default:
            throw RuleRuntimeError("\(base.kind) has no member \(name)")
        }
    }

    /// The value a method is called on, and the method's name.
    private mutating func method(_ callee: RuleExpression) throws(RuleRuntimeError) -> (RuleValue, String) {
        switch callee {
        case .member(let base, let name, _):
            return (try evaluate(base), name)
        case .index(let base, let key, _):
            let baseValue = try evaluate(base)
            guard case .string(let name) = try evaluate(key) else { throw RuleRuntimeError("a method's name must be a string") }
            return (baseValue, name)
        default:
            throw RuleRuntimeError("only methods can be called")
        }
    }

    private mutating func call(_ name: String, on base: RuleValue, _ arguments: [RuleExpression]) throws(RuleRuntimeError) -> RuleValue {
        switch base {
        case .snapshot(let snapshot): return try snapshotCall(name, on: snapshot, arguments)
        case .string(let text): return try stringCall(name, on: text, arguments)
        default: throw RuleRuntimeError("\(name)() cannot be called on \(base.kind)")
        }
    }

    private mutating func stringArgument(_ argument: RuleExpression, of name: String) throws(RuleRuntimeError) -> String {
        guard case .string(let text) = try evaluate(argument) else { throw RuleRuntimeError("\(name) needs a string") }
        return text
    }

    private mutating func childPath(_ argument: RuleExpression, of name: String) throws(RuleRuntimeError) -> Path {
        let text = try stringArgument(argument, of: name)
        // Firebase takes any text: a segment no key can have ("bob@example.com") names a
        // location that cannot exist, not an error.
        let keys = text.split(separator: "/").map { ChildKey(unchecked: String($0)) }
        guard !keys.isEmpty else { throw RuleRuntimeError("\(name) needs a path, not \"\(text)\"") }
        return Path(keys: keys)
    }

    private mutating func snapshotCall(_ name: String, on snapshot: RuleSnapshot, _ arguments: [RuleExpression]) throws(RuleRuntimeError) -> RuleValue {
        switch name {
        case "val":
            let node = read(snapshot)
            if node.isEmpty { return .null }
            if node.isLeaf { return RuleValue(node.leafValue) }
            return .object(node.jsonValue(.normal))
        case "child":
            let path = try childPath(arguments[0], of: name)
            return .snapshot(snapshot.descendant(path))
        case "parent":
            guard let parent = snapshot.parent else { throw RuleRuntimeError("the root has no parent") }
            return .snapshot(parent)
        case "hasChild":
            let path = try childPath(arguments[0], of: name)
            return .boolean(!read(snapshot).child(at: path).isEmpty)
        case "hasChildren":
            let node = read(snapshot)
            guard let argument = arguments.first else { return .boolean(!node.isLeaf && node.childCount > 0) }
            guard case .array(let elements, _) = argument else { throw RuleRuntimeError("hasChildren needs an array") }
            for element in elements where node.child(at: try childPath(element, of: name)).isEmpty { return .boolean(false) }
            return .boolean(true)
        case "exists":
            return .boolean(!read(snapshot).isEmpty)
        case "getPriority":
            return read(snapshot).priority.map { RuleValue($0.leafValue) } ?? .null
        case "isNumber", "isString", "isBoolean":
            let node = read(snapshot)
            guard node.isLeaf, !node.isEmpty else { return .boolean(false) }
            switch (name, node.leafValue) {
            case ("isNumber", .int?), ("isNumber", .double?), ("isString", .string?), ("isBoolean", .bool?): return .boolean(true)
            default: return .boolean(false)
            }
        default:
            throw RuleRuntimeError("a snapshot has no method \(name)")
        }
    }

    private mutating func stringCall(_ name: String, on text: String, _ arguments: [RuleExpression]) throws(RuleRuntimeError) -> RuleValue {
        switch name {
        case "contains": return .boolean(text.contains(try stringArgument(arguments[0], of: name)))
        case "beginsWith": return .boolean(text.hasPrefix(try stringArgument(arguments[0], of: name)))
        case "endsWith": return .boolean(text.hasSuffix(try stringArgument(arguments[0], of: name)))
        case "replace":
            let target = try stringArgument(arguments[0], of: name)
            let replacement = try stringArgument(arguments[1], of: name)
            return .string(target.isEmpty ? text : text.replacing(target, with: replacement))
        case "toLowerCase": return .string(text.lowercased())
        case "toUpperCase": return .string(text.uppercased())
        case "matches":
            guard case .regex(let regex)? = arguments.first else { throw RuleRuntimeError("matches needs a regular expression") }
            return .boolean(regex.matches(text))
        default:
            throw RuleRuntimeError("a string has no method \(name)")
        }
    }

    private mutating func binary(_ op: String, _ leftExpression: RuleExpression, _ rightExpression: RuleExpression) throws(RuleRuntimeError) -> RuleValue {
        let left = try evaluate(leftExpression)
        if op == "&&" || op == "||" {
            guard case .boolean(let leftHolds) = left else { throw RuleRuntimeError("\(op) needs true or false, not \(left.kind)") }
            if op == "&&" && !leftHolds { return .boolean(false) }
            if op == "||" && leftHolds { return .boolean(true) }
            let right = try evaluate(rightExpression)
            guard case .boolean(let rightHolds) = right else { throw RuleRuntimeError("\(op) needs true or false, not \(right.kind)") }
            return .boolean(rightHolds)
        }
        let right = try evaluate(rightExpression)
        switch op {
        case "==", "===": return .boolean(Self.equal(left, right))
        case "!=", "!==": return .boolean(!Self.equal(left, right))
        case "<", "<=", ">", ">=":
            switch (left, right) {
            case (.number(let a), .number(let b)): return .boolean(Self.compare(op, a, b))
            case (.string(let a), .string(let b)): return .boolean(Self.compare(op, a, b))
            default: throw RuleRuntimeError("\(op) cannot compare \(left.kind) with \(right.kind)")
            }
        case "+":
            switch (left, right) {
            case (.number(let a), .number(let b)): return .number(a + b)
            case (.string(let a), .string(let b)): return .string(a + b)
            case (.string(let a), .number(let b)): return .string(a + RuleValue.format(b))
            case (.number(let a), .string(let b)): return .string(RuleValue.format(a) + b)
            default: throw RuleRuntimeError("+ cannot add \(left.kind) and \(right.kind)")
            }
        default:
            guard case .number(let a) = left, case .number(let b) = right else {
                throw RuleRuntimeError("\(op) needs numbers, not \(left.kind) and \(right.kind)")
            }
            switch op {
            case "-": return .number(a - b)
            case "*": return .number(a * b)
            // Firebase: a division by zero gives NaN ("(1/0 + '') == 'NaN'" holds).
            case "/": return .number(b == 0 ? .nan : a / b)
            default: return .number(b == 0 ? .nan : a.truncatingRemainder(dividingBy: b))
            }
        }
    }

    private static func equal(_ left: RuleValue, _ right: RuleValue) -> Bool {
        switch (left, right) {
        case (.number(let a), .number(let b)): a == b
        default: left == right
        }
    }

    private static func compare<T: Comparable>(_ op: String, _ a: T, _ b: T) -> Bool {
        switch op {
        case "<": a < b
        case "<=": a <= b
        case ">": a > b
        default: a >= b
        }
    }
}

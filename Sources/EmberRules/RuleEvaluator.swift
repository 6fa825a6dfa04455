import EmberCore

/// The state of one evaluation of a compiled rule (``RuleCompiler``), and the operations its
/// code performs: reading variables and snapshots, members, methods, operators.
///
/// JavaScript's semantics where Firebase keeps them (`+` joins strings and numbers, `===` and
/// `==` compare strictly) and Firebase's where it differs (dividing by zero gives NaN; a member
/// of null is null but calling a method on it, comparing it with `<`, or adding it is an error).
/// An error anywhere ends the evaluation: the rule is false, even under `||`.
struct RuleEvaluator {
    /// What every rule of one check shares: who, when, the data, the query.
    let context: RuleContext
    /// The rule's location (`data`, `newData`).
    private(set) var path: Path
    /// The keys the wildcards above the rule matched.
    private(set) var captures: RuleCaptures
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

    /// Makes the evaluator ready for a rule at `path`: a check evaluates all its rules with
    /// one evaluator.
    /// - Parameter newData: the new data at `path`, when the caller read it already (and
    ///   noted it as read).
    mutating func move(to path: Path, captures: RuleCaptures, newData: Node? = nil) {
        self.path = path
        self.captures = captures
        dataNode = nil
        newDataNode = newData
    }

    /// The rule's verdict.
    /// - Throws: ``RuleRuntimeError`` when the evaluation fails or the result is not a boolean.
    mutating func verdict(_ code: RuleCode) throws(RuleRuntimeError) -> Bool {
        guard case .boolean(let result) = try code(&self) else {
            throw RuleRuntimeError("the rule's value is not true or false")
        }
        return result
    }

    /// Notes the value of the compound sub-expression at `range`, when tracing.
    mutating func record(_ range: Range<Int>, _ value: RuleValue) -> RuleValue {
        if trace != nil { trace!.append((range, value)) }
        return value
    }

    // MARK: Variables

    /// `auth`: the claims, or null.
    var auth: RuleValue { context.auth.map(RuleValue.init) ?? .null }

    /// Whether `auth` is not null (no claims, or claims that are JSON's null).
    var isSignedIn: Bool {
        switch context.auth {
        case .none, .null?: false
        default: true
        }
    }

    /// `auth.name`: a member of the claims (null when not signed in), without making `auth`.
    func auth(_ name: String) throws(RuleRuntimeError) -> RuleValue {
        switch context.auth {
        case .object(let members)?: members.first { StringOrder.bytesEqual($0.key, name) }.map { RuleValue($0.value) } ?? .null
        case nil: try member(name, of: .null)
        case let other?: try member(name, of: RuleValue(other))
        }
    }

    /// The key the wildcard `name` matched.
    func capture(_ name: String) throws(RuleRuntimeError) -> RuleValue {
        guard let key = captures[name] else { throw RuleRuntimeError("\(name) matched nothing") }
        return .string(key)
    }

    /// `root`, `data` or `newData`.
    func snapshot(_ version: RuleSnapshot.Version, atRoot: Bool) throws(RuleRuntimeError) -> RuleValue {
        switch version {
        case .before: return .snapshot(RuleSnapshot(context.root, .before, path: atRoot ? .root : path))
        case .after:
            guard let newRoot = context.newRoot else { throw RuleRuntimeError("newData exists only when writing") }
            return .snapshot(RuleSnapshot(newRoot, .after, path: path))
        }
    }

    /// The data at the rule's own location (`data`, `newData`): looked up once per evaluation,
    /// however often the rule reads it, and noted as read.
    mutating func own(_ version: RuleSnapshot.Version) throws(RuleRuntimeError) -> Node {
        switch version {
        case .before:
            if let dataNode { return dataNode }
            let node = context.root.node(at: path)
            reads.record(node, at: path, of: .before)
            dataNode = node
            return node
        case .after:
            if let newDataNode { return newDataNode }
            guard let newRoot = context.newRoot else { throw RuleRuntimeError("newData exists only when writing") }
            let node = newRoot.node(at: path)
            reads.record(node, at: path, of: .after)
            newDataNode = node
            return node
        }
    }

    /// The data of `snapshot`, noted as read.
    private mutating func read(_ snapshot: RuleSnapshot) -> Node {
        if snapshot.path == path, let node = try? own(snapshot.version) { return node }
        let node = snapshot.node
        reads.record(node, at: snapshot.path, of: snapshot.version)
        return node
    }

    // MARK: Members and methods

    /// A member that is not called: a property of an object, a string's length, a query's.
    func member(_ name: String, of base: RuleValue) throws(RuleRuntimeError) -> RuleValue {
        switch base {
        case .object(.object(let members)):
            return members.first { StringOrder.bytesEqual($0.key, name) }.map { RuleValue($0.value) } ?? .null
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

    /// Calls the method `name` (resolved as `method` when it is one) on `base`.
    mutating func call(
        _ method: RuleMethod?, named name: String, on base: RuleValue, _ arguments: [RuleCompiler.Argument]
    ) throws(RuleRuntimeError) -> RuleValue {
        switch base {
        case .snapshot(let snapshot):
            guard let method, method.isSnapshotMethod else { throw RuleRuntimeError("a snapshot has no method \(name)") }
            switch method {
            case .child:
                return .snapshot(snapshot.descendant(try childPath(arguments[0], of: name)))
            case .parent:
                guard let parent = snapshot.parent else { throw RuleRuntimeError("the root has no parent") }
                return .snapshot(parent)
            default:
                return try call(method, on: read(snapshot), arguments)
            }
        case .string(let text):
            guard let method, !method.isSnapshotMethod else { throw RuleRuntimeError("a string has no method \(name)") }
            return try call(method, on: text, arguments)
        default:
            throw RuleRuntimeError("\(name)() cannot be called on \(base.kind)")
        }
    }

    /// A snapshot method that reads the snapshot's data (`node`): not `child` or `parent`.
    mutating func call(_ method: RuleMethod, on node: Node, _ arguments: [RuleCompiler.Argument]) throws(RuleRuntimeError) -> RuleValue {
        switch method {
        case .val:
            if node.isEmpty { return .null }
            if node.isLeaf { return RuleValue(node.leafValue) }
            return .object(node.jsonValue(.normal))
        case .hasChild:
            return .boolean(!node.child(at: try childPath(arguments[0], of: method.rawValue)).isEmpty)
        case .hasChildren:
            guard let argument = arguments.first else { return .boolean(!node.isLeaf && node.childCount > 0) }
            guard case .array(let elements) = argument else { throw RuleRuntimeError("hasChildren needs an array") }
            for element in elements where node.child(at: try childPath(.value(element), of: method.rawValue)).isEmpty {
                return .boolean(false)
            }
            return .boolean(true)
        case .exists:
            return .boolean(!node.isEmpty)
        case .getPriority:
            return node.priority.map { RuleValue($0.leafValue) } ?? .null
        case .isNumber, .isString, .isBoolean:
            guard node.isLeaf, !node.isEmpty else { return .boolean(false) }
            switch (method, node.leafValue) {
            case (.isNumber, .int?), (.isNumber, .double?), (.isString, .string?), (.isBoolean, .bool?): return .boolean(true)
            default: return .boolean(false)
            }
        default:
            throw RuleRuntimeError("a snapshot's data has no method \(method.rawValue)")
        }
    }

    /// A string's method. `contains`, `beginsWith`, `endsWith` and `replace` look for runs of
    /// code units (`String.codeUnitRange(of:from:)`), as JavaScript's and Java's do, not
    /// for Swift's canonically equivalent characters: `'e\u0301'.endsWith('\u0301')` holds and
    /// `'\u212Aate'.beginsWith('K')` does not.
    private mutating func call(_ method: RuleMethod, on text: String, _ arguments: [RuleCompiler.Argument]) throws(RuleRuntimeError) -> RuleValue {
        let name = method.rawValue
        switch method {
        case .contains: return .boolean(text.codeUnitRange(of: try string(arguments[0], of: name)) != nil)
        case .beginsWith: return .boolean(text.utf8.starts(with: try string(arguments[0], of: name).utf8))
        case .endsWith: return .boolean(text.utf8.reversed().starts(with: try string(arguments[0], of: name).utf8.reversed()))
        case .replace:
            let target = try string(arguments[0], of: name)
            let replacement = try string(arguments[1], of: name)
            return .string(text.replacingCodeUnits(target, with: replacement))
        case .toLowerCase: return .string(text.lowercased())
        case .toUpperCase: return .string(text.uppercased())
        case .matches:
            guard case .regex(let regex)? = arguments.first else { throw RuleRuntimeError("matches needs a regular expression") }
            return .boolean(regex.matches(text))
        default:
            throw RuleRuntimeError("a string has no method \(name)")
        }
    }

    private mutating func string(_ argument: RuleCompiler.Argument, of name: String) throws(RuleRuntimeError) -> String {
        guard case .value(let code) = argument, case .string(let text) = try code(&self) else {
            throw RuleRuntimeError("\(name) needs a string")
        }
        return text
    }

    private mutating func childPath(_ argument: RuleCompiler.Argument, of name: String) throws(RuleRuntimeError) -> Path {
        let text = try string(argument, of: name)
        // Firebase takes any text: a segment no key can have ("bob@example.com") names a
        // location that cannot exist, not an error.
        let keys = text.split(separator: "/").map { ChildKey(unchecked: String($0)) }
        guard !keys.isEmpty else { throw RuleRuntimeError("\(name) needs a path, not \"\(text)\"") }
        return Path(keys: keys)
    }

    // MARK: Operators

    static func equal(_ left: RuleValue, _ right: RuleValue) -> Bool {
        switch (left, right) {
        case (.number(let a), .number(let b)): a == b
        default: left == right
        }
    }

    static func compare<T: Comparable>(_ op: RuleCompiler.Comparison, _ a: T, _ b: T) -> Bool {
        switch op {
        case .less: a < b
        case .lessOrEqual: a <= b
        case .greater: a > b
        case .greaterOrEqual: a >= b
        }
    }
}

import EmberCore

/// The state of one evaluation of a compiled rule (``RuleCompiler``), and the operations its
/// code performs: reading variables and snapshots, members, methods, operators.
///
/// JavaScript's semantics where Firebase keeps them (`+` joins strings and numbers, `===` and
/// `==` compare strictly) and Firebase's where it differs (dividing by zero gives NaN; a member
/// of null is null but calling a method on it, comparing it with `<`, or adding it is an error).
/// An error anywhere ends the evaluation: the rule is false, even under `||`.
///
/// A class: one per check, shared by all its rules and handed to every compiled closure. As a
/// struct of nine stored properties it was copied and destroyed through its value witnesses
/// (the optimizer built it in a temporary), more than the allocation costs.
final class RuleEvaluator {
    /// What every rule of one check shares (a ``RuleContext``'s, held here rather than in a
    /// context object of their own: a check makes one evaluator and no context): the claims
    /// (`auth`), the time (`now`), the data before and after, the query.
    let claims: JSONValue?
    let now: Int64
    let root: RuleData
    let newRoot: RuleData?
    let query: RuleQuery
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

    /// An evaluator of one rule in `context`, at the context's location.
    convenience init(context: RuleContext, tracing: Bool = false, reads: RuleReads = RuleReads()) {
        self.init(
            auth: context.auth, now: context.now, data: context.root, newData: context.newRoot, query: context.query,
            path: context.path, captures: context.captures, tracing: tracing, reads: reads)
    }

    /// An evaluator for the rules of one check, standing at `path`.
    init(
        auth: JSONValue?, now: Int64, data: RuleData, newData: RuleData?, query: RuleQuery = RuleQuery(), path: Path = .root,
        captures: RuleCaptures = RuleCaptures(), tracing: Bool = false, reads: RuleReads = RuleReads()
    ) {
        claims = auth
        self.now = now
        root = data
        newRoot = newData
        self.query = query
        self.path = path
        self.captures = captures
        trace = tracing ? [] : nil
        dataNode = nil
        newDataNode = nil
        self.reads = reads
    }

    /// Makes the evaluator ready for a rule at `path`: a check evaluates all its rules with
    /// one evaluator.
    /// - Parameter newData: the new data at `path`, when the caller read it already (and
    ///   noted it as read).
    func move(to path: Path, captures: RuleCaptures, newData: Node? = nil) {
        self.path = path
        self.captures = captures
        dataNode = nil
        newDataNode = newData
    }

    /// The rule's verdict.
    /// - Throws: ``RuleRuntimeError`` when the evaluation fails or the result is not a boolean.
    func verdict(_ code: RuleCode) throws(RuleRuntimeError) -> Bool {
        guard case .boolean(let result) = try code(self) else {
            throw RuleRuntimeError("the rule's value is not true or false")
        }
        return result
    }

    /// Notes the value of the compound sub-expression at `range`, when tracing.
    /// The value is consumed and handed back: nothing is copied unless it is traced.
    @inline(__always)
    func record(_ range: Range<Int>, _ value: consuming RuleValue) -> RuleValue {
        if trace != nil { trace!.append((range, copy value)) }
        return value
    }

    // MARK: Variables

    /// `auth`: the claims, or null.
    var auth: RuleValue { claims.map(RuleValue.init) ?? .null }

    /// Whether `auth` is not null (no claims, or claims that are JSON's null).
    var isSignedIn: Bool {
        switch claims {
        case .none, .null?: false
        default: true
        }
    }

    /// `auth.name`: a member of the claims (null when not signed in), without making `auth`.
    func auth(_ name: String) throws(RuleRuntimeError) -> RuleValue {
        switch claims {
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
        case .before: return .snapshot(RuleSnapshot(root, .before, path: atRoot ? .root : path))
        case .after:
            guard let newRoot else { throw RuleRuntimeError("newData exists only when writing") }
            return .snapshot(RuleSnapshot(newRoot, .after, path: path))
        }
    }

    /// The data at the rule's own location (`data`, `newData`): looked up once per evaluation,
    /// however often the rule reads it, and noted as read.
    func own(_ version: RuleSnapshot.Version) throws(RuleRuntimeError) -> Node {
        switch version {
        case .before:
            if let dataNode { return dataNode }
            let node = root.node(at: path)
            reads.record(node, at: path, of: .before)
            dataNode = node
            return node
        case .after:
            if let newDataNode { return newDataNode }
            guard let newRoot else { throw RuleRuntimeError("newData exists only when writing") }
            let node = newRoot.node(at: path)
            reads.record(node, at: path, of: .after)
            newDataNode = node
            return node
        }
    }

    /// The data of `snapshot`, noted as read.
    private func read(_ snapshot: RuleSnapshot) -> Node {
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
    func call(
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
    func call(_ method: RuleMethod, on node: Node, _ arguments: [RuleCompiler.Argument]) throws(RuleRuntimeError) -> RuleValue {
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
    private func call(_ method: RuleMethod, on text: String, _ arguments: [RuleCompiler.Argument]) throws(RuleRuntimeError) -> RuleValue {
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

    private func string(_ argument: RuleCompiler.Argument, of name: String) throws(RuleRuntimeError) -> String {
        guard case .value(let code) = argument, case .string(let text) = try code(self) else {
            throw RuleRuntimeError("\(name) needs a string")
        }
        return text
    }

    private func childPath(_ argument: RuleCompiler.Argument, of name: String) throws(RuleRuntimeError) -> Path {
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

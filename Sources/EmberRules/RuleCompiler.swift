import EmberCore

/// The code of a compiled rule expression: evaluates it in an evaluator's state.
typealias RuleCode = @Sendable (RuleEvaluator) throws(RuleRuntimeError) -> RuleValue

/// Compiles a checked ``RuleExpression`` into ``RuleCode``: a closure per node, with its
/// operator, variable and method resolved once, at load, instead of matched by name on every
/// evaluation; snapshot methods called directly on `data` or `newData` read the rule's own
/// location without making a snapshot. The code records the same sub-expressions, in the same
/// order, as the expression's tree (`explain`), and fails where it would.
enum RuleCompiler {
    /// An argument of a method call.
    enum Argument: Sendable {
        case value(RuleCode)
        /// `matches`'s regular expression.
        case regex(RuleRegex)
        /// `hasChildren`'s keys.
        case array([RuleCode])
    }

    /// `<`, `<=`, `>`, `>=`.
    enum Comparison: Sendable {
        case less, lessOrEqual, greater, greaterOrEqual
    }

    /// The code of `expression`.
    static func compile(_ expression: RuleExpression) -> RuleCode {
        switch expression {
        case .null: return { (_: RuleEvaluator) throws(RuleRuntimeError) in .null }
        case .boolean(let value): return { (_: RuleEvaluator) throws(RuleRuntimeError) in .boolean(value) }
        case .number(let value): return { (_: RuleEvaluator) throws(RuleRuntimeError) in .number(value) }
        case .string(let value): return { (_: RuleEvaluator) throws(RuleRuntimeError) in .string(value) }
        case .regex, .array:
            return failing("a regular expression or an array is not a value")
        case .variable(let name):
            return variable(name)
        case .capture(let name):
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in try e.capture(name) }
        case .member(.variable("auth"), let name, let range):
            // `auth.uid`, the common case: no `auth` value made.
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in e.record(range, try e.auth(name)) }
        case .member(let base, let name, let range):
            let base = compile(base)
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in e.record(range, try e.member(name, of: try base(e))) }
        case .index(let base, let key, let range):
            let base = compile(base)
            let key = compile(key)
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let baseValue = try base(e)
                guard case .string(let name) = try key(e) else { throw RuleRuntimeError("a key must be a string") }
                return e.record(range, try e.member(name, of: baseValue))
            }
        case .call(let callee, let arguments, let range):
            return call(callee, arguments.map(argument), range)
        case .unary(let op, let operand, let range):
            let operand = compile(operand)
            if op == "!" {
                return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                    let value = try operand(e)
                    guard case .boolean(let bool) = value else { throw RuleRuntimeError("! cannot apply to \(value.kind)") }
                    return e.record(range, .boolean(!bool))
                }
            }
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let value = try operand(e)
                guard case .number(let number) = value else { throw RuleRuntimeError("\(op) cannot apply to \(value.kind)") }
                return e.record(range, .number(-number))
            }
        case .binary(let op, .variable("auth"), .null, let range), .binary(let op, .null, .variable("auth"), let range):
            // `auth != null`, the common case: no `auth` value made.
            switch op {
            case "==", "===", "!=", "!==":
                let signedIn = op.hasPrefix("!")
                return { (e: RuleEvaluator) throws(RuleRuntimeError) in e.record(range, .boolean(e.isSignedIn == signedIn)) }
            default:
                return binary(op, compile(.variable("auth")), compile(.null), range)
            }
        case .binary(let op, let left, let right, let range):
            return binary(op, compile(left), compile(right), range)
        case .conditional(let condition, let then, let otherwise, let range):
            let condition = compile(condition)
            let then = compile(then)
            let otherwise = compile(otherwise)
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                guard case .boolean(let holds) = try condition(e) else {
                    throw RuleRuntimeError("the condition of ? : is not true or false")
                }
                return e.record(range, try (holds ? then : otherwise)(e))
            }
        }
    }

    private static func failing(_ reason: String) -> RuleCode {
        { (_: RuleEvaluator) throws(RuleRuntimeError) in throw RuleRuntimeError(reason) }
    }

    private static func variable(_ name: String) -> RuleCode {
        switch name {
        case "auth": return { (e: RuleEvaluator) throws(RuleRuntimeError) in e.auth }
        case "now": return { (e: RuleEvaluator) throws(RuleRuntimeError) in .number(Double(e.now)) }
        case "root": return { (e: RuleEvaluator) throws(RuleRuntimeError) in try e.snapshot(.before, atRoot: true) }
        case "data": return { (e: RuleEvaluator) throws(RuleRuntimeError) in try e.snapshot(.before, atRoot: false) }
        case "newData": return { (e: RuleEvaluator) throws(RuleRuntimeError) in try e.snapshot(.after, atRoot: false) }
        case "query": return { (e: RuleEvaluator) throws(RuleRuntimeError) in .query(e.query) }
        default: return failing("unknown variable \(name)")
        }
    }

    private static func argument(_ expression: RuleExpression) -> Argument {
        switch expression {
        case .regex(let regex): .regex(regex)
        case .array(let elements, _): .array(elements.map(compile))
        default: .value(compile(expression))
        }
    }

    /// A call: `base.name(arguments)` or `base['name'](arguments)`.
    private static func call(_ callee: RuleExpression, _ arguments: [Argument], _ range: Range<Int>) -> RuleCode {
        switch callee {
        case .member(.variable(let variable), let name, _) where variable == "data" || variable == "newData":
            // A method of the rule's own data, the common case (`newData.isNumber()`): read
            // the node once, make no snapshot.
            let version: RuleSnapshot.Version = variable == "data" ? .before : .after
            let base = compile(.variable(variable))
            guard let method = RuleMethod(rawValue: name), method.isSnapshotMethod, method != .child, method != .parent else {
                return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                    e.record(range, try e.call(RuleMethod(rawValue: name), named: name, on: try base(e), arguments))
                }
            }
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                e.record(range, try e.call(method, on: try e.own(version), arguments))
            }
        case .member(let base, let name, _):
            let base = compile(base)
            let method = RuleMethod(rawValue: name)
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                e.record(range, try e.call(method, named: name, on: try base(e), arguments))
            }
        case .index(let base, let key, _):
            let base = compile(base)
            let key = compile(key)
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let baseValue = try base(e)
                guard case .string(let name) = try key(e) else { throw RuleRuntimeError("a method's name must be a string") }
                return e.record(range, try e.call(RuleMethod(rawValue: name), named: name, on: baseValue, arguments))
            }
        default:
            return failing("only methods can be called")
        }
    }

    private static func binary(_ op: String, _ left: @escaping RuleCode, _ right: @escaping RuleCode, _ range: Range<Int>) -> RuleCode {
        switch op {
        case "&&", "||":
            let shortCircuit = op == "||"
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let leftValue = try left(e)
                guard case .boolean(let leftHolds) = leftValue else { throw RuleRuntimeError("\(op) needs true or false, not \(leftValue.kind)") }
                if leftHolds == shortCircuit { return e.record(range, .boolean(shortCircuit)) }
                let rightValue = try right(e)
                guard case .boolean(let rightHolds) = rightValue else { throw RuleRuntimeError("\(op) needs true or false, not \(rightValue.kind)") }
                return e.record(range, .boolean(rightHolds))
            }
        case "==", "===", "!=", "!==":
            let negated = op.hasPrefix("!")
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let leftValue = try left(e)
                let rightValue = try right(e)
                return e.record(range, .boolean(RuleEvaluator.equal(leftValue, rightValue) != negated))
            }
        case "<", "<=", ">", ">=":
            let comparison: Comparison = op == "<" ? .less : op == "<=" ? .lessOrEqual : op == ">" ? .greater : .greaterOrEqual
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let leftValue = try left(e)
                let rightValue = try right(e)
                switch (leftValue, rightValue) {
                case (.number(let a), .number(let b)): return e.record(range, .boolean(RuleEvaluator.compare(comparison, a, b)))
                case (.string(let a), .string(let b)):
                    // JavaScript's order, by UTF-16 code units (Swift's `<` orders canonically
                    // equivalent strings as one).
                    return e.record(range, .boolean(RuleEvaluator.compare(comparison, StringOrder.compareUTF16(a, b), 0)))
                default: throw RuleRuntimeError("\(op) cannot compare \(leftValue.kind) with \(rightValue.kind)")
                }
            }
        case "+":
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let leftValue = try left(e)
                let rightValue = try right(e)
                switch (leftValue, rightValue) {
                case (.number(let a), .number(let b)): return e.record(range, .number(a + b))
                case (.string(let a), .string(let b)): return e.record(range, .string(a + b))
                case (.string(let a), .number(let b)): return e.record(range, .string(a + RuleValue.format(b)))
                case (.number(let a), .string(let b)): return e.record(range, .string(RuleValue.format(a) + b))
                default: throw RuleRuntimeError("+ cannot add \(leftValue.kind) and \(rightValue.kind)")
                }
            }
        default:
            let arithmetic: @Sendable (Double, Double) -> Double =
                switch op {
                case "-": { $0 - $1 }
                case "*": { $0 * $1 }
                // Firebase: a division by zero gives NaN ("(1/0 + '') == 'NaN'" holds).
                case "/": { $1 == 0 ? .nan : $0 / $1 }
                default: { $1 == 0 ? .nan : $0.truncatingRemainder(dividingBy: $1) }
                }
            return { (e: RuleEvaluator) throws(RuleRuntimeError) in
                let leftValue = try left(e)
                let rightValue = try right(e)
                guard case .number(let a) = leftValue, case .number(let b) = rightValue else {
                    throw RuleRuntimeError("\(op) needs numbers, not \(leftValue.kind) and \(rightValue.kind)")
                }
                return e.record(range, .number(arithmetic(a, b)))
            }
        }
    }
}

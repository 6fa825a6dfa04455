/// Checks a parsed rule before it is ever evaluated, as Firebase does when rules are uploaded:
/// unknown variables, wildcards and methods, members a value cannot have, arguments of the
/// wrong kind, comparisons that cannot hold, and a rule that cannot be a boolean are errors.
/// What only the data can tell (a member of `auth` that is missing, a string method on a value
/// that turns out not to be a string) is left to evaluation, where it denies.
struct RuleChecker {
    /// The variables the rule may use (`.read`: `query`; `.write`/`.validate`: `newData`).
    let variables: Set<String>
    /// The wildcards above the rule (`$uid`), with their `$`.
    let captures: Set<String>

    /// Checks `expression` as a whole rule.
    /// - Throws: ``RuleSyntaxError`` naming the first problem.
    func check(_ expression: RuleExpression) throws(RuleSyntaxError) {
        let type = try valueType(expression, at: 0)
        switch type {
        case .boolean, .any, .primitive: return
        default: throw RuleSyntaxError("a rule must be true or false, not \(type.name)", at: 0)
        }
    }

    /// The type of `expression` used as a value: an uncalled method is an error.
    private func valueType(_ expression: RuleExpression, at offset: Int) throws(RuleSyntaxError) -> RuleType {
        let type = try self.type(expression, at: offset)
        switch type {
        case .snapshotMethod(let name), .stringMethod(let name):
            throw RuleSyntaxError("\(name) is a method: call it, \(name)()", at: Self.start(of: expression) ?? offset)
        case .anyMember: return .any
        case .array:
            throw RuleSyntaxError("an array can only be hasChildren's argument", at: Self.start(of: expression) ?? offset)
        case .regex:
            throw RuleSyntaxError("a regular expression can only be matches's argument", at: Self.start(of: expression) ?? offset)
        default: return type
        }
    }

    static func start(of expression: RuleExpression) -> Int? {
        switch expression {
        case .member(_, _, let range), .index(_, _, let range), .call(_, _, let range), .unary(_, _, let range),
            .binary(_, _, _, let range), .conditional(_, _, _, let range), .array(_, let range):
            range.lowerBound
        default: nil
        }
    }

    private func type(_ expression: RuleExpression, at offset: Int) throws(RuleSyntaxError) -> RuleType {
        let here = Self.start(of: expression) ?? offset
        switch expression {
        case .null: return .null
        case .boolean: return .boolean
        case .number: return .number
        case .string: return .string
        case .regex: return .regex
        case .array: return .array
        case .variable(let name):
            guard variables.contains(name) else {
                if RuleMethod.variables.contains(name) {
                    throw RuleSyntaxError("\(name) is not available in this rule", at: here)
                }
                throw RuleSyntaxError("unknown variable \(name)", at: here)
            }
            switch name {
            case "auth": return .auth
            case "now": return .number
            case "query": return .query
            default: return .snapshot
            }
        case .capture(let name):
            guard captures.contains(name) else { throw RuleSyntaxError("unknown wildcard \(name): no $-key above this rule", at: here) }
            return .string
        case .member(let base, let name, _):
            return try member(name, of: try type(base, at: here), at: here)
        case .index(let base, let key, _):
            let baseType = try type(base, at: here)
            switch baseType {
            case .auth, .any, .anyMember:
                let keyType = try valueType(key, at: here)
                guard keyType.mayBeString || keyType == .string else {
                    throw RuleSyntaxError("a key must be a string, not \(keyType.name)", at: here)
                }
                if case .string(let literal) = key { return .anyMember(literal) }
                return .anyMember("")
            case .snapshot, .string, .primitive:
                guard case .string(let literal) = key else {
                    throw RuleSyntaxError("[ ] on \(baseType.name) takes the name of a method, as a string", at: here)
                }
                return try member(literal, of: baseType, at: here)
            default:
                throw RuleSyntaxError("\(baseType.name) cannot be indexed", at: here)
            }
        case .call(let callee, let arguments, _):
            let calleeType = try type(callee, at: here)
            switch calleeType {
            case .snapshotMethod(let name): return try snapshotCall(name, arguments, at: here)
            case .stringMethod(let name): return try stringCall(name, arguments, at: here)
            case .anyMember(let name):
                guard RuleMethod.stringMethods.contains(name) else {
                    throw RuleSyntaxError(name.isEmpty ? "only methods can be called" : "no method \(name)", at: here)
                }
                return try stringCall(name, arguments, at: here)
            default:
                throw RuleSyntaxError("\(calleeType.name) is not a method", at: here)
            }
        case .unary(let op, let operand, _):
            let operandType = try valueType(operand, at: here)
            if op == "!" {
                guard operandType.mayBeBoolean else { throw RuleSyntaxError("! needs a boolean, not \(operandType.name)", at: here) }
                return .boolean
            }
            guard operandType.mayBeNumber else { throw RuleSyntaxError("- needs a number, not \(operandType.name)", at: here) }
            return .number
        case .binary(let op, let left, let right, _):
            let leftType = try valueType(left, at: here)
            let rightType = try valueType(right, at: here)
            return try binary(op, leftType, rightType, at: here)
        case .conditional(let condition, let then, let otherwise, _):
            let conditionType = try valueType(condition, at: here)
            guard conditionType.mayBeBoolean else {
                throw RuleSyntaxError("the condition of ? : must be a boolean, not \(conditionType.name)", at: here)
            }
            let thenType = try valueType(then, at: here)
            let otherwiseType = try valueType(otherwise, at: here)
            if thenType == otherwiseType { return thenType }
            if [thenType, otherwiseType].contains(where: { $0 == .any || $0 == .primitive }) { return .any }
            return .mixed
        }
    }

    private func member(_ name: String, of baseType: RuleType, at offset: Int) throws(RuleSyntaxError) -> RuleType {
        switch baseType {
        case .snapshot:
            guard RuleMethod.snapshotMethods.contains(name) else { throw RuleSyntaxError("a snapshot has no method \(name)", at: offset) }
            return .snapshotMethod(name)
        case .query:
            guard RuleMethod.queryProperties.contains(name) else { throw RuleSyntaxError("query has no property \(name)", at: offset) }
            switch name {
            case "orderByKey", "orderByValue", "orderByPriority": return .boolean
            default: return .primitive
            }
        case .string, .primitive:
            if name == "length" { return .number }
            guard RuleMethod.stringMethods.contains(name) else { throw RuleSyntaxError("a string has no member \(name)", at: offset) }
            return .stringMethod(name)
        case .auth, .any, .anyMember:
            return .anyMember(name)
        default:
            throw RuleSyntaxError("\(baseType.name) has no member \(name)", at: offset)
        }
    }

    private func snapshotCall(_ name: String, _ arguments: [RuleExpression], at offset: Int) throws(RuleSyntaxError) -> RuleType {
        switch name {
        case "child", "hasChild":
            try expectArguments(name, arguments, count: 1, at: offset)
            try expectString(arguments[0], of: name, at: offset)
            return name == "child" ? .snapshot : .boolean
        case "hasChildren":
            if arguments.isEmpty { return .boolean }
            guard arguments.count == 1, case .array(let elements, _) = arguments[0], !elements.isEmpty else {
                throw RuleSyntaxError("hasChildren takes nothing or a non-empty array of keys: hasChildren(['a', 'b'])", at: offset)
            }
            for element in elements { try expectString(element, of: name, at: offset) }
            return .boolean
        default:
            try expectArguments(name, arguments, count: 0, at: offset)
            switch name {
            case "val", "getPriority": return .primitive
            case "parent": return .snapshot
            default: return .boolean
            }
        }
    }

    private func stringCall(_ name: String, _ arguments: [RuleExpression], at offset: Int) throws(RuleSyntaxError) -> RuleType {
        switch name {
        case "contains", "beginsWith", "endsWith":
            try expectArguments(name, arguments, count: 1, at: offset)
            try expectString(arguments[0], of: name, at: offset)
            return .boolean
        case "replace":
            try expectArguments(name, arguments, count: 2, at: offset)
            for argument in arguments { try expectString(argument, of: name, at: offset) }
            return .string
        case "matches":
            try expectArguments(name, arguments, count: 1, at: offset)
            guard case .regex = arguments[0] else {
                throw RuleSyntaxError("matches takes a regular expression literal: matches(/^[a-z]+$/)", at: offset)
            }
            return .boolean
        default:
            try expectArguments(name, arguments, count: 0, at: offset)
            return .string
        }
    }

    private func expectArguments(_ name: String, _ arguments: [RuleExpression], count: Int, at offset: Int) throws(RuleSyntaxError) {
        guard arguments.count == count else {
            throw RuleSyntaxError("\(name) takes \(count == 0 ? "no" : String(count)) argument\(count == 1 ? "" : "s"), not \(arguments.count)", at: offset)
        }
    }

    private func expectString(_ argument: RuleExpression, of name: String, at offset: Int) throws(RuleSyntaxError) {
        let type = try valueType(argument, at: offset)
        guard type.mayBeString else { throw RuleSyntaxError("\(name) takes a string, not \(type.name)", at: Self.start(of: argument) ?? offset) }
    }

    private func binary(_ op: String, _ left: RuleType, _ right: RuleType, at offset: Int) throws(RuleSyntaxError) -> RuleType {
        switch op {
        case "&&", "||":
            for type in [left, right] where !type.mayBeBoolean {
                throw RuleSyntaxError("\(op) needs booleans, not \(type.name)", at: offset)
            }
            return .boolean
        case "==", "!=", "===", "!==":
            for type in [left, right] where type == .snapshot || type == .query {
                throw RuleSyntaxError("\(type.name) cannot be compared (compare its val())", at: offset)
            }
            return .boolean
        case "<", "<=", ">", ">=":
            for type in [left, right] where !(type.mayBeNumber || type.mayBeString) {
                throw RuleSyntaxError("\(op) compares numbers or strings, not \(type.name)", at: offset)
            }
            return .boolean
        case "+":
            for type in [left, right] where !(type.mayBeNumber || type.mayBeString) {
                throw RuleSyntaxError("+ adds numbers or joins strings, not \(type.name)", at: offset)
            }
            if left == .string || right == .string { return .string }
            if left == .number && right == .number { return .number }
            return .any
        default:
            for type in [left, right] where !type.mayBeNumber {
                throw RuleSyntaxError("\(op) needs numbers, not \(type.name)", at: offset)
            }
            return .number
        }
    }
}

/// Parses a rule expression into a ``RuleExpression`` (precedence, low to high: `?:`, `||`,
/// `&&`, equality, comparison, `+ -`, `* / %`, unary `! -`, then member access, index and call).
struct RuleParser {
    /// How deep an expression's tree may be: chains such as `a || b || c` count one level per
    /// operator. Checking, compiling and evaluating a rule recurse once per level, on threads
    /// with small stacks (an event loop's, a task's): deeper rules are refused with an error,
    /// never a crash.
    static let maxDepth = 128
    /// How deeply the source may nest parentheses, `!`, `? :`, indexes and arguments: parsing
    /// one such level takes a dozen calls (one per precedence level).
    static let maxNesting = 48

    private let tokens: [RuleToken]
    private var index = 0
    /// How many `conditional()`/`unary()` calls are open.
    private var nesting = 0
    /// The depth of the tree the last parsing function returned: tracked as the tree is
    /// built, so that a tree too deep is refused before it exists (freeing one recurses as
    /// deep as it is).
    private var depth = 0

    private init(tokens: [RuleToken]) {
        self.tokens = tokens
    }

    /// Parses `source`.
    /// - Throws: ``RuleSyntaxError`` naming what was expected and where.
    /// - Complexity: O(n).
    static func parse(_ source: String) throws(RuleSyntaxError) -> RuleExpression {
        var parser = RuleParser(tokens: try RuleLexer.tokens(of: source))
        guard parser.current.kind != .end else { throw RuleSyntaxError("the rule is empty", at: 0) }
        let expression = try parser.conditional()
        guard parser.current.kind == .end else {
            throw RuleSyntaxError("unexpected \(parser.describe(parser.current)) after a complete expression", at: parser.current.start)
        }
        return expression
    }

    /// Notes that the tree just built, starting at `offset`, is `depth` deep, refusing past
    /// ``maxDepth``.
    private mutating func built(depth: Int, at offset: Int) throws(RuleSyntaxError) {
        guard depth <= Self.maxDepth else {
            throw RuleSyntaxError(
                "the expression nests deeper than \(Self.maxDepth) levels (a chain of || or && counts one per operator: split it)", at: offset)
        }
        self.depth = depth
    }

    /// Enters one more level of nesting, refusing past ``maxNesting``.
    private mutating func enter() throws(RuleSyntaxError) {
        nesting += 1
        guard nesting <= Self.maxNesting else {
            throw RuleSyntaxError("the expression nests deeper than \(Self.maxNesting) levels of parentheses, !, ? : or arguments", at: current.start)
        }
    }

    private var current: RuleToken { tokens[index] }

    private mutating func advance() -> RuleToken {
        defer { index += 1 }
        return tokens[index]
    }

    private func isSymbol(_ symbol: String) -> Bool {
        if case .symbol(symbol) = current.kind { return true }
        return false
    }

    private mutating func expect(_ symbol: String) throws(RuleSyntaxError) -> RuleToken {
        guard isSymbol(symbol) else {
            throw RuleSyntaxError("expected \"\(symbol)\", found \(describe(current))", at: current.start)
        }
        return advance()
    }

    private func describe(_ token: RuleToken) -> String {
        switch token.kind {
        case .number(let value): "the number \(value)"
        case .string(let text): "the string \"\(text)\""
        case .identifier(let name): "\"\(name)\""
        case .capture(let name): "\"\(name)\""
        case .regex: "a regular expression"
        case .symbol(let symbol): "\"\(symbol)\""
        case .end: "the end of the rule"
        }
    }

    private mutating func conditional() throws(RuleSyntaxError) -> RuleExpression {
        try enter()
        defer { nesting -= 1 }
        let start = current.start
        let condition = try binary(level: 0)
        guard isSymbol("?") else { return condition }
        let conditionDepth = depth
        _ = advance()
        let then = try conditional()
        let thenDepth = depth
        _ = try expect(":")
        let otherwise = try conditional()
        try built(depth: 1 + max(conditionDepth, thenDepth, depth), at: start)
        return .conditional(condition, then, otherwise, start..<tokens[index - 1].end)
    }

    private static let levels: [[String]] = [["||"], ["&&"], ["==", "!=", "===", "!=="], ["<", "<=", ">", ">="], ["+", "-"], ["*", "/", "%"]]

    private mutating func binary(level: Int) throws(RuleSyntaxError) -> RuleExpression {
        guard level < Self.levels.count else { return try unary() }
        let start = current.start
        var left = try binary(level: level + 1)
        var leftDepth = depth
        while case .symbol(let symbol) = current.kind, Self.levels[level].contains(symbol) {
            _ = advance()
            let right = try binary(level: level + 1)
            try built(depth: 1 + max(leftDepth, depth), at: start)
            leftDepth = depth
            left = .binary(symbol, left, right, start..<tokens[index - 1].end)
        }
        depth = leftDepth
        return left
    }

    private mutating func unary() throws(RuleSyntaxError) -> RuleExpression {
        if case .symbol(let symbol) = current.kind, symbol == "!" || symbol == "-" {
            try enter()
            defer { nesting -= 1 }
            let start = advance().start
            let operand = try unary()
            try built(depth: 1 + depth, at: start)
            return .unary(symbol, operand, start..<tokens[index - 1].end)
        }
        return try postfix()
    }

    private mutating func postfix() throws(RuleSyntaxError) -> RuleExpression {
        let start = current.start
        var expression = try primary()
        var expressionDepth = depth
        while true {
            if isSymbol(".") {
                _ = advance()
                guard case .identifier(let name) = current.kind else {
                    throw RuleSyntaxError("expected a name after \".\", found \(describe(current))", at: current.start)
                }
                _ = advance()
                try built(depth: 1 + expressionDepth, at: start)
                expression = .member(expression, name, start..<tokens[index - 1].end)
            } else if isSymbol("[") {
                _ = advance()
                let key = try conditional()
                _ = try expect("]")
                try built(depth: 1 + max(expressionDepth, depth), at: start)
                expression = .index(expression, key, start..<tokens[index - 1].end)
            } else if isSymbol("(") {
                switch expression {
                case .member, .index: expression = try call(expression, calleeDepth: expressionDepth, start: start)
                default: throw RuleSyntaxError("only methods can be called", at: current.start)
                }
            } else {
                depth = expressionDepth
                return expression
            }
            expressionDepth = depth
        }
    }

    private mutating func call(_ callee: RuleExpression, calleeDepth: Int, start: Int) throws(RuleSyntaxError) -> RuleExpression {
        _ = try expect("(")
        var arguments: [RuleExpression] = []
        var deepest = calleeDepth
        if !isSymbol(")") {
            arguments.append(try conditional())
            deepest = max(deepest, depth)
            while isSymbol(",") {
                _ = advance()
                arguments.append(try conditional())
                deepest = max(deepest, depth)
            }
        }
        _ = try expect(")")
        try built(depth: 1 + deepest, at: start)
        return .call(callee, arguments, start..<tokens[index - 1].end)
    }

    private mutating func primary() throws(RuleSyntaxError) -> RuleExpression {
        let token = advance()
        depth = 1
        switch token.kind {
        case .number(let value): return .number(value)
        case .string(let text): return .string(text)
        case .identifier("true"): return .boolean(true)
        case .identifier("false"): return .boolean(false)
        case .identifier("null"): return .null
        case .identifier("var"), .identifier("let"), .identifier("function"), .identifier("return"):
            throw RuleSyntaxError("rules are one expression: no \(describe(token))", at: token.start)
        case .identifier(let name): return .variable(name)
        case .capture(let name): return .capture(name)
        case .regex(let pattern, let flags):
            do {
                return .regex(try RuleRegex(pattern: pattern, flags: flags))
            } catch {
                throw RuleSyntaxError(error.reason, at: token.start + error.offset)
            }
        case .symbol("("):
            let inner = try conditional()
            _ = try expect(")")
            return inner
        case .symbol("["):
            var elements: [RuleExpression] = []
            var deepest = 0
            if !isSymbol("]") {
                elements.append(try conditional())
                deepest = depth
                while isSymbol(",") {
                    _ = advance()
                    elements.append(try conditional())
                    deepest = max(deepest, depth)
                }
            }
            let end = try expect("]").end
            try built(depth: 1 + deepest, at: token.start)
            return .array(elements, token.start..<end)
        default:
            throw RuleSyntaxError("expected a value, found \(describe(token))", at: token.start)
        }
    }
}

import EmberCore

/// The state of one compilation: a ``Lexer`` over the input, and what the caller wants from it.
///
/// The same code serves three callers: ``CommandParser/parse(_:)`` (a command or an error),
/// ``CommandParser/isComplete(_:)`` (did the input end inside something open?) and
/// ``CommandParser/completionContext(for:)``. For the last, the parser is given where the word at
/// the cursor starts, and every place where it knows what it expects ``offer(_:)``s that as a
/// ``CompletionContext`` when the cursor is there.
struct Parser {
    /// The input, read as the parser goes.
    var lexer: Lexer
    /// When completing: the index of the first character of the word at the cursor.
    let completionStart: Int?
    /// Whether a tail taken as written (Lua code, a plugin's arguments) leaves a bracket, string
    /// or block open.
    private(set) var hasOpenTail = false

    /// A parser at the start of `source`; `completionStart` when asked for a completion context.
    init(_ source: String, completionStart: Int? = nil) {
        lexer = Lexer(source)
        self.completionStart = completionStart
    }

    // MARK: Completion

    /// When completing and the next word starts at the cursor's word, stops with the context
    /// `make` builds from the partial word.
    mutating func offer(_ make: (String) -> CompletionContext) throws(ParseFailure) {
        guard let target = completionStart else { return }
        var probe = lexer
        if probe.skipTrivia() { return }  // the cursor is in a comment
        let partial = lexer.text(target..<lexer.characters.count)
        if probe.index == target { throw .completion(make(partial)) }
        // A quoted word still open at the cursor (`get "my ke`): its last word is the partial.
        if probe.index < target {
            do throws(ParseFailure) {
                _ = try probe.next(.word)
            } catch {
                if case .error(_, incomplete: true) = error { throw .completion(make(partial)) }
            }
        }
    }

    // MARK: Commands

    /// Reads one command: the whole input, or (`nested`) the rest of it after `as NAME`.
    /// - Returns: `nil` for an input with nothing but white space and comments.
    mutating func command(nested: Bool = false) throws(ParseFailure) -> Command? {
        try offer { .command(partial: $0) }
        let head = try lexer.next(.word)
        guard let name = head.keyword, let written = head.text else {
            if head.isEnd && !nested { return nil }
            throw .error("expected a command\(nested ? " after the client name" : ""), found \(head.token.shown)", at: head)
        }
        switch name {
        case "get", "ls":
            let path = try optionalPath(before: QueryModifier.lowercasedNames.union([Self.timeoutKeyword]))
            let (query, _) = try self.query(events: false, timeout: true, at: path.text)
            return name == "get" ? .get(path, query) : .ls(path, query)
        case "tree": return try tree()
        case "set":
            let path = try self.path(after: written)
            let value = try self.value()
            let priority = try optionalPriority()
            try expectEnd()
            return .set(path, value, priority: priority)
        case "update":
            let path = try self.path(after: written)
            let value = try object(for: "update")
            try expectEnd()
            return .update(path, value)
        case "push":
            let path = try self.path(after: written)
            let value = try lexer.peek(.value).isEnd ? nil : try self.value()
            try expectEnd()
            return .push(path, value)
        case "remove", "rm": return try remove(written)
        case "increment": return try increment(written)
        case "transaction":
            let path = try self.path(after: written)
            guard let function = luaTail() else {
                let end = try lexer.next(.word)
                throw .error("expected a Lua function after the path, found the end of the line", at: end)
            }
            return .transaction(path, function: function)
        case "priority":
            let path = try self.path(after: written)
            let value = try priorityValue()
            try expectEnd()
            return .priority(path, value)
        case "export":
            let path = try optionalPath(before: [])
            let file = try optionalWord(offering: { .file(partial: $0) })
            try expectEnd()
            return .export(path, file: file)
        case "import":
            let path = try self.path(after: written)
            let file = try word(offering: { .file(partial: $0) }, what: "a file", after: "the path")
            try expectEnd()
            return .import(path, file: file)
        case "watch":
            let names = QueryModifier.lowercasedNames.union(EventType.allCases.map(\.rawValue))
            let path = try optionalPath(before: names)
            let (query, events) = try self.query(events: true, at: path.text)
            return .watch(path, query, events: events)
        case "unwatch": return try unwatch()
        case "keepsynced":
            let path = try self.path(after: written)
            let on = try onOff()
            try expectEnd()
            return .keepSynced(path, on)
        case "ondisconnect": return try onDisconnect(written)
        case "cd":
            let path = try optionalPath(before: [])
            try expectEnd()
            return .cd(path)
        case "client":
            let client = try word(offering: { .client(partial: $0) }, what: "a client name", after: "'\(written)'")
            try offer { .keyword(partial: $0, candidates: ["auth"]) }
            let next = try lexer.next(.word)
            if next.isEnd { return .client(client) }
            guard next.keyword == "auth" else {
                throw .error("unexpected \(next.token.shown) after the client name (client NAME [auth {...}])", at: next)
            }
            guard let action = try authAction(after: "auth") else {
                let end = try lexer.next(.word)
                throw .error("'client NAME auth' needs claims ({uid: 'alice'}) or none, found the end of the line", at: end)
            }
            return .client(client, auth: action)
        case "auth": return .auth(try authAction(after: written))
        case "rules": return .rules(try rules(written))
        case "as": return try `as`(written)
        case "server": return try server(written)
        case "lua": return .lua(luaTail())
        case "run":
            let file = try word(offering: { .file(partial: $0) }, what: "a file", after: "'\(written)'")
            var arguments: [Word] = []
            while let argument = try optionalWord(offering: { _ in .none }) { arguments.append(argument) }
            return .run(file, arguments: arguments)
        case "help":
            let topic = try optionalWord(offering: { .command(partial: $0) })
            try expectEnd()
            return .help(topic)
        case "trace": return try trace()
        case "tour":
            try offer { .keyword(partial: $0, candidates: ["next", "stop"]) }
            let token = try lexer.next(.word)
            try expectEnd()
            guard let text = token.text else { return .tour(.show) }
            switch text.lowercased() {
            case "next": return .tour(.next)
            case "stop", "off", "end": return .tour(.stop)
            default:
                guard let number = Int(text), number >= 1 else {
                    throw .error("tour takes a lesson number, next or stop, not '\(text)'", at: token)
                }
                return .tour(.lesson(number))
            }
        case "inspect":
            let client = try optionalWord(offering: { .client(partial: $0) })
            try expectEnd()
            return .inspect(client)
        case "timing":
            try offer { .keyword(partial: $0, candidates: ["on", "off"]) }
            let on = try lexer.peek(.word).isEnd ? nil : try onOff()
            try expectEnd()
            return .timing(on)
        case "pager":
            try offer { .keyword(partial: $0, candidates: ["on", "off"]) }
            let on = try lexer.peek(.word).isEnd ? nil : try onOff()
            try expectEnd()
            return .pager(on)
        case "output": return try output()
        case "sleep":
            let value = try milliseconds(for: written, in: .sleep)
            try expectEnd()
            return .sleep(value)
        default:
            if let command = Self.simpleCommands[name] {
                try expectEnd()
                return command
            }
            let arguments = lexer.restWithoutComments()
            if let arguments, !BracketBalance.isClosed(plain: arguments.text) { hasOpenTail = true }
            return .plugin(Word(written, at: head.position), arguments: arguments)
        }
    }

    /// The commands that take no arguments, by name.
    static let simpleCommands: [String: Command] = [
        "watches": .watches, "offline": .offline, "online": .online, "drop": .drop, "status": .status,
        "pwd": .pwd, "clients": .clients, "plugins": .plugins, "history": .history, "clear": .clear, "view": .view,
        "exit": .exit, "quit": .exit, "\\q": .exit, "explain": .explain,
    ]

    // MARK: Pieces

    /// A required path: a bare word or a quoted string.
    mutating func path(after previous: String) throws(ParseFailure) -> PathExpression {
        try offer { .path(partial: $0) }
        let token = try lexer.next(.word)
        guard let text = token.text else {
            throw .error("expected a path after '\(previous)', found \(token.token.shown)", at: token)
        }
        return PathExpression(text, at: token.position)
    }

    /// An optional path: omitted (empty, where it would be) at the end of the input, before a
    /// keyword in `keywords` (lowercased), and before punctuation (which the rest of the command
    /// then reports).
    mutating func optionalPath(before keywords: Set<String>) throws(ParseFailure) -> PathExpression {
        try offer { .path(partial: $0) }
        let token = try lexer.peek(.word)
        if let keyword = token.keyword, keywords.contains(keyword) {
            return PathExpression("", at: token.position)
        }
        guard let text = token.text else { return PathExpression("", at: token.position) }
        _ = try lexer.next(.word)
        return PathExpression(text, at: token.position)
    }

    /// A required word (a name, a file): bare (to the next white space) or quoted.
    mutating func word(
        offering make: (String) -> CompletionContext, what: String, after previous: String
    ) throws(ParseFailure) -> Word {
        try offer(make)
        let token = try lexer.next(.raw)
        guard let text = token.text else {
            throw .error("expected \(what) after \(previous), found \(token.token.shown)", at: token)
        }
        return Word(text, at: token.position)
    }

    /// An optional word (bare or quoted); `nil` at the end of the input.
    mutating func optionalWord(offering make: (String) -> CompletionContext) throws(ParseFailure) -> Word? {
        try offer(make)
        let token = try lexer.next(.raw)
        return token.text.map { Word($0, at: token.position) }
    }

    /// A relaxed-JSON value.
    mutating func value() throws(ParseFailure) -> ValueExpression {
        let first = try lexer.peek(.value)
        let value = try RelaxedJSON.value(from: &lexer)
        return ValueExpression(value, at: first.position)
    }

    /// A relaxed-JSON object (what `update` takes).
    mutating func object(for command: String) throws(ParseFailure) -> ValueExpression {
        let first = try lexer.peek(.value)
        let value = try self.value()
        guard case .object = value.value else {
            throw .error("\(command) needs an object ({key: value, ...}), found \(first.token.shown)", at: first)
        }
        return value
    }

    /// A priority: a number, a string, `null` or a server value.
    mutating func priorityValue() throws(ParseFailure) -> ValueExpression {
        let first = try lexer.peek(.value)
        let value = try self.value()
        switch value.value {
        case .null, .int, .double, .string: return value
        case .object where value.value[".sv"] != nil: return value
        default: throw .error("a priority is a number, a string or null, found \(first.token.shown)", at: first)
        }
    }

    /// `priority P` after a value, if written.
    mutating func optionalPriority() throws(ParseFailure) -> ValueExpression? {
        try offer { .keyword(partial: $0, candidates: ["priority"]) }
        guard try lexer.peek(.word).keyword == "priority" else { return nil }
        _ = try lexer.next(.word)
        return try priorityValue()
    }

    /// `on` or `off` (also `true` or `false`).
    mutating func onOff() throws(ParseFailure) -> Bool {
        try offer { .keyword(partial: $0, candidates: ["on", "off"]) }
        let token = try lexer.next(.word)
        switch token.keyword {
        case "on", "true": return true
        case "off", "false": return false
        default: throw .error("expected on or off, found \(token.token.shown)", at: token)
        }
    }

    /// The end of the input: anything else is an error.
    mutating func expectEnd() throws(ParseFailure) {
        let token = try lexer.next(.word)
        guard token.isEnd else { throw .error("unexpected \(token.token.shown) after the command", at: token) }
    }

    /// The rest of the input as written (Lua code), after the white space that follows what was
    /// read; `nil` when there is none.
    mutating func luaTail() -> Word? {
        let code = lexer.verbatimRest()
        if let code, !BracketBalance.isClosed(lua: code.text) { hasOpenTail = true }
        return code
    }

    /// An error that underlines from the start of `first` to the end of `last` (just `first` when
    /// they are on different lines).
    func error(_ message: String, from first: LexedToken, to last: LexedToken) -> ParseFailure {
        let length =
            first.position.line == last.position.line
            ? last.range.upperBound - first.range.lowerBound : first.length
        return .error(EmberQLError(message, at: first.position, length: length), incomplete: false)
    }
}

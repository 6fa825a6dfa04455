import EmberCore

/// The commands with more to them than a path and a value.
extension Parser {
    /// `tree [PATH] [depth N]`.
    mutating func tree() throws(ParseFailure) -> Command {
        let path = try optionalPath(before: ["depth"])
        try offer { .keyword(partial: $0, candidates: ["depth"]) }
        let next = try lexer.next(.word)
        if next.isEnd { return .tree(path, depth: nil) }
        guard next.keyword == "depth" else {
            throw .error("unexpected \(next.token.shown) after the command", at: next)
        }
        try offer { _ in .none }
        let count = try lexer.next(.word)
        guard case .number(let text) = count.token, let depth = Int(text), depth >= 0 else {
            throw .error("'depth' needs a non-negative integer, found \(count.token.shown)", at: count)
        }
        try expectEnd()
        return .tree(path, depth: depth)
    }

    /// `remove [-y] PATH` (or `rm`).
    mutating func remove(_ written: String) throws(ParseFailure) -> Command {
        try offer { .path(partial: $0) }
        var previous = written
        var confirmed = false
        let flag = try lexer.peek(.word)
        if flag.keyword == "-y" {
            _ = try lexer.next(.word)
            confirmed = true
            previous = flag.text ?? "-y"
        }
        let path = try self.path(after: previous)
        try expectEnd()
        return .remove(path, confirmed: confirmed)
    }

    /// `increment PATH [N]`.
    mutating func increment(_ written: String) throws(ParseFailure) -> Command {
        let path = try self.path(after: written)
        let token = try lexer.next(.value)
        let amount: ValueExpression
        switch token.token {
        case .end:
            amount = ValueExpression(.int(1), at: token.position)
        case .number(let text):
            amount = ValueExpression(try RelaxedJSON.number(text, at: token), at: token.position)
        default:
            throw .error("'\(written)' needs a number, found \(token.token.shown)", at: token)
        }
        try expectEnd()
        return .increment(path, by: amount)
    }

    /// `unwatch ID | all`.
    mutating func unwatch() throws(ParseFailure) -> Command {
        try offer { .keyword(partial: $0, candidates: ["all"]) }
        let token = try lexer.next(.word)
        let target: UnwatchTarget
        if token.keyword == "all" {
            target = .all
        } else if case .number(let text) = token.token, let id = Int(text), id >= 0 {
            target = .id(id)
        } else {
            throw .error("expected a watch number or all, found \(token.token.shown)", at: token)
        }
        try expectEnd()
        return .unwatch(target)
    }

    /// `ondisconnect PATH set VALUE [priority P] | update OBJECT | remove | cancel`.
    mutating func onDisconnect(_ written: String) throws(ParseFailure) -> Command {
        let path = try self.path(after: written)
        try offer { .keyword(partial: $0, candidates: ["set", "update", "remove", "cancel"]) }
        let token = try lexer.next(.word)
        let action: OnDisconnectAction
        switch token.keyword {
        case "set":
            let value = try self.value()
            action = .set(value, priority: try optionalPriority())
        case "update":
            action = .update(try object(for: "ondisconnect update"))
        case "remove":
            action = .remove
        case "cancel":
            action = .cancel
        default:
            throw .error("expected set, update, remove or cancel, found \(token.token.shown)", at: token)
        }
        try expectEnd()
        return .onDisconnect(path, action)
    }

    /// `trace`, `trace on [CLIENT|all]` or `trace off`.
    mutating func trace() throws(ParseFailure) -> Command {
        if try lexer.peek(.word).isEnd {
            try offer { .keyword(partial: $0, candidates: ["on", "off"]) }
            return .trace(.show)
        }
        guard try onOff() else {
            try expectEnd()
            return .trace(.off)
        }
        try offer { .client(partial: $0) }
        let token = try lexer.next(.raw)
        try expectEnd()
        guard let name = token.text else { return .trace(.on(.currentClient)) }
        return .trace(.on(name == "all" ? .all : .client(Word(name, at: token.position))))
    }

    /// `as NAME COMMAND`: the command is read from the same input, so its positions are the
    /// input's.
    mutating func `as`(_ written: String) throws(ParseFailure) -> Command {
        let client = try word(offering: { .client(partial: $0) }, what: "a client name", after: "'\(written)'")
        try offer { .command(partial: $0) }
        let next = try lexer.peek(.word)
        if next.keyword == "as" {
            throw .error("'as' cannot be nested: it runs one command as one client", at: next)
        }
        guard let command = try command(nested: true) else {
            throw .error("expected a command after the client name, found the end of the line", at: next)
        }
        return .as(client, command)
    }

    /// `server clock skew MS`, `server latency MS` or `server timeout MS`.
    mutating func server(_ written: String) throws(ParseFailure) -> Command {
        try offer { .keyword(partial: $0, candidates: ["clock", "latency", "timeout"]) }
        let setting = try lexer.next(.word)
        switch setting.keyword {
        case "clock":
            try offer { .keyword(partial: $0, candidates: ["skew"]) }
            let skew = try lexer.next(.word)
            guard skew.keyword == "skew" else {
                throw .error("expected skew after 'clock', found \(skew.token.shown)", at: skew)
            }
            let value = try milliseconds(for: "skew", in: .clockSkew)
            try expectEnd()
            return .serverClockSkew(value)
        case "latency":
            let value = try milliseconds(for: "latency", in: .latency)
            try expectEnd()
            return .serverLatency(value)
        case "timeout":
            let value = try milliseconds(for: "timeout", in: .disconnectTimeout)
            try expectEnd()
            return .serverTimeout(value)
        default:
            throw .error("expected clock, latency or timeout after '\(written)', found \(setting.token.shown)", at: setting)
        }
    }

    /// The next word as an integer number of milliseconds within `range`.
    /// - Throws: ``ParseFailure`` naming `keyword` and the range when the word is not an integer
    ///   or is out of the range (numbers too large for 64 bits included).
    mutating func milliseconds(for keyword: String, in range: MillisecondRange) throws(ParseFailure) -> Int64 {
        let word = try lexer.next(.word)
        guard case .number(let text) = word.token, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            throw .error("'\(keyword)' needs an integer number of milliseconds, found \(word.token.shown)", at: word)
        }
        guard let value = Int64(text), range.bounds.contains(value) else {
            throw .error("'\(keyword)' must be \(range.description), not \(text)", at: word)
        }
        return value
    }

    /// `output [pretty|json|table]`.
    mutating func output() throws(ParseFailure) -> Command {
        try offer { .keyword(partial: $0, candidates: OutputMode.allCases.map(\.rawValue)) }
        let token = try lexer.next(.word)
        if token.isEnd { return .output(nil) }
        guard let name = token.keyword, let mode = OutputMode(rawValue: name) else {
            throw .error("expected pretty, json or table, found \(token.token.shown)", at: token)
        }
        try expectEnd()
        return .output(mode)
    }

    /// `{CLAIMS} [expires MS]` or `none` after `auth`; `nil` at the end of the input.
    mutating func authAction(after written: String) throws(ParseFailure) -> AuthAction? {
        try offer { .keyword(partial: $0, candidates: ["none"]) }
        let next = try lexer.peek(.value)
        if next.isEnd { return nil }
        if next.keyword == "none" {
            _ = try lexer.next(.word)
            try expectEnd()
            return .signOut
        }
        let claims = try object(for: written)
        try offer { .keyword(partial: $0, candidates: ["expires"]) }
        let after = try lexer.next(.word)
        if after.isEnd { return .signIn(claims, expires: nil) }
        guard after.keyword == "expires" else {
            throw .error("unexpected \(after.token.shown) after the claims (auth {...} [expires MS])", at: after)
        }
        let lifetime = try milliseconds(for: "expires", in: .tokenLifetime)
        try expectEnd()
        return .signIn(claims, expires: lifetime)
    }

    /// `rules [show] | load FILE | open | trace on|off | coverage`.
    mutating func rules(_ written: String) throws(ParseFailure) -> RulesAction {
        try offer { .keyword(partial: $0, candidates: ["show", "load", "open", "trace", "coverage"]) }
        let token = try lexer.next(.word)
        let action: RulesAction
        switch token.keyword {
        case nil where token.isEnd, "show"?: action = .show
        case "load"?: action = .load(try word(offering: { .file(partial: $0) }, what: "a rules file", after: "'load'"))
        case "open"?: action = .open
        case "trace"?: action = .trace(try onOff())
        case "coverage"?: action = .coverage
        default: throw .error("expected show, load, open, trace or coverage after '\(written)', found \(token.token.shown)", at: token)
        }
        try expectEnd()
        return action
    }
}

import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberQL
import EmberRules
import EmberServer
import EmberStorage
import EmberWire

/// `auth`, `rules` and `explain`: who a client is, what the rules allow, and why.
extension Shell {
    // MARK: Auth

    /// `auth`: shows, signs in or signs out the current client.
    func authenticate(_ action: AuthAction?) throws(ShellError) -> CommandResult {
        let (text, json) = try authenticate(action, client: database)
        return .report(text: text, json: json)
    }

    /// Shows, signs in or signs out `client`, and says so. Signing in waits for the server's
    /// answer (when connected): a refused token is an error.
    func authenticate(_ action: AuthAction?, client: Database) throws(ShellError) -> (text: String, json: JSONValue) {
        switch action {
        case nil:
            return ("\(client.name): " + identityDescription(client.authState), identityJSON(client))
        case .signOut?:
            client.signOut()
            return ("\(client.name) signed out: the rules see auth == null", identityJSON(client))
        case .signIn(let claims, let expires)?:
            let wasHolding = client.writesHeld
            let token: AuthToken
            do {
                token = try client.signIn(claims: claims.value, lifetime: expires ?? AuthToken.defaultLifetime)
            } catch {
                throw .database(error, at: claims.position)
            }
            settle()
            if case .refused(_, let error) = client.authState { throw .database(error, at: claims.position) }
            let released = wasHolding && client.connectionState.isConnected
            return (
                "\(client.name) signed in as \(token.uid) \(formatter.compact(token.shownClaims)), token expires in "
                    + Self.span(token.expiresAt - ember.clock.now()) + (released ? "; the held writes went out" : ""),
                identityJSON(client))
        }
    }

    /// `alice {uid: "alice", email: "a@x"}, token expires in 59 min`, or why writes are held.
    func identityDescription(_ state: AuthState) -> String {
        let now = ember.clock.now()
        switch state {
        case .signedOut:
            return "not signed in (the rules see auth == null)"
        case .signedIn(let token):
            return "signed in as \(token.uid) \(formatter.compact(token.shownClaims)), token expires in "
                + Self.span(token.expiresAt - now)
        case .expired(let token):
            // The server may find a token expired before this client's clock does (a skewed clock).
            let when = now >= token.expiresAt ? "the token expired \(Self.span(now - token.expiresAt)) ago" : "the server found the token expired"
            return style.warning(
                "signed in as \(token.uid), but \(when): writes are held until a new token (auth {...}); reads go on as not signed in")
        case .refused(let token, let error):
            return style.warning("signed in as \(token.uid), but the server refused the token (\(error.message)): writes are held")
        }
    }

    /// `{"client", "uid", "claims", "state", "expiresAt", "writesHeld"}`.
    func identityJSON(_ client: Database) -> JSONValue {
        let state = client.authState
        let name: String
        switch state {
        case .signedOut: name = "signedOut"
        case .signedIn: name = "signedIn"
        case .expired: name = "expired"
        case .refused: name = "refused"
        }
        return .object([
            ("client", .string(client.name.rawValue)), ("uid", state.token.map { .string($0.uid) } ?? .null),
            ("claims", state.token?.shownClaims ?? .null), ("state", .string(name)),
            ("expiresAt", state.token.map { .int($0.expiresAt) } ?? .null), ("writesHeld", .bool(client.writesHeld)),
        ])
    }

    /// Why a client's writes are held, in a few words: `alice's token expired`.
    static func heldReason(_ state: AuthState) -> String {
        switch state {
        case .expired(let token): "\(token.uid)'s token expired"
        case .refused(let token, _): "the server refused \(token.uid)'s token"
        case .signedOut, .signedIn: "waiting for a token"
        }
    }

    /// The prompt's mark of who the current client is: `[alice]`, `[alice expired]`, or nothing.
    var identityMark: String {
        switch database.authState {
        case .signedOut: ""
        case .signedIn(let token): "[\(token.uid)]"
        case .expired(let token): "[\(token.uid) expired]"
        case .refused(let token, _): "[\(token.uid) refused]"
        }
    }

    /// A span of time in words, rounded: `850 ms`, `42 s`, `59 min`, `1 h`, `3 h 5 min`,
    /// `2 d 4 h`.
    static func span(_ milliseconds: Int64) -> String {
        let value = max(0, milliseconds)
        let seconds = (value + 500) / 1000
        // Under a minute, a wait's words (`850 ms`, `42 s`), to the second.
        if seconds < 60 { return duration(value < 1000 ? value : seconds * 1000) }
        let minutes = (seconds + 30) / 60
        if minutes < 60 { return "\(minutes) min" }
        if minutes < 1440 { return "\(minutes / 60) h" + (minutes % 60 > 0 ? " \(minutes % 60) min" : "") }
        let hours = (minutes + 30) / 60
        return "\(hours / 24) d" + (hours % 24 > 0 ? " \(hours % 24) h" : "")
    }

    // MARK: Rules

    /// `rules show | load FILE | open | trace on|off | coverage`.
    func rules(_ action: RulesAction) throws(ShellError) -> CommandResult {
        if ember.administration == nil, let remote = ember.remoteServer {
            switch action {
            case .show, .load, .open: return try remoteRules(action, on: remote)
            case .trace, .coverage: break
            }
        }
        let server = try administration(for: "rules")
        switch action {
        case .show:
            let rules = server.rules
            guard let source = rules.source else {
                return .report(
                    text: style.dim("(no rules loaded: the rules are open, everyone may read and write; rules load FILE sets some)")
                        + "\n" + Self.openRulesText,
                    json: .object([("open", .bool(true)), ("rules", .string(Self.openRulesText))]))
            }
            return .report(text: source.hasSuffix("\n") ? String(source.dropLast()) : source, json: .object([
                ("open", .bool(false)), ("rules", .string(source)),
            ]))
        case .load(let file):
            let rules: Ruleset
            do {
                rules = try Self.rules(fromFile: file.text)
            } catch {
                throw .command(error.code, "\(error.message); the rules in force are unchanged", at: file.position)
            }
            return try putInForce(rules, from: file.text, at: file.position)
        case .open:
            return try putInForce(.open, from: nil, at: nil)
        case .trace(let on):
            state.tracesRules = on
            watchRuleChecks()
            return .done(on ? "rules trace on: every rules check prints as it happens" : "rules trace off")
        case .coverage:
            return coverage(of: server)
        }
    }

    /// `rules show | load FILE | open` on a server in another process, over its REST API
    /// (`/.settings/rules.json`), as the session's administrator. A file is compiled here
    /// first, so that its errors name `FILE:line:column` as they do embedded.
    private func remoteRules(_ action: RulesAction, on remote: any RemoteServer) throws(ShellError) -> CommandResult {
        var text: String?
        var position: SourcePosition?
        var loaded: (file: String, rules: Ruleset)?
        switch action {
        case .load(let file):
            position = file.position
            let source: String
            do {
                source = try FileAccess.readText(file.text)
            } catch {
                throw .command(error.code, "\(error.message); the rules in force are unchanged", at: file.position)
            }
            do {
                loaded = (file.text, try Ruleset(text: source))
            } catch {
                throw .command(error.code, "\(file.text):\(error.message); the rules in force are unchanged", at: file.position)
            }
            text = source
        case .open:
            text = Self.openRulesText
        default:
            break
        }
        let answer = Pending<Result<String, DatabaseError>>()
        remote.rules(text, on: engine, completion: answer.filler)
        try wait(for: answer, interrupted: text == nil ? "rules show stopped waiting" : "the server may or may not have taken the rules")
        let document: String
        switch answer.value {
        case .success(let received)?:
            document = received
        case .failure(let error)?:
            throw .command(error.code, text == nil ? error.message : "\(error.message); the rules in force are unchanged", at: position)
        case nil:
            throw .command(ErrorCode.disconnected, "\(remote.url) did not answer")
        }
        settle()
        if let loaded {
            return .report(
                text: "loaded \(loaded.file) on \(remote.url): \(Self.ruleCounts(loaded.rules))",
                json: .object([("ok", .bool(true)), ("open", .bool(loaded.rules.isOpen)), ("rules", .int(Int64(loaded.rules.entries.count)))]))
        }
        if text != nil {
            return .report(
                text: "the rules of \(remote.url) are open: everyone may read and write",
                json: .object([("ok", .bool(true)), ("open", .bool(true)), ("rules", .int(0))]))
        }
        let shown = document.hasSuffix("\n") ? String(document.dropLast()) : document
        let isOpen = (try? Ruleset(text: document))?.isOpen ?? false
        return .report(text: shown, json: .object([("open", .bool(isOpen)), ("rules", .string(document))]))
    }

    /// How many rules of each kind `rules` has: `1 .read, 2 .write, 0 .validate`.
    static func ruleCounts(_ rules: Ruleset) -> String {
        RuleKind.allCases.map { kind in "\(rules.entries.filter { $0.kind == kind }.count) \(kind.rawValue)" }.joined(separator: ", ")
    }

    /// The rules document in `file`, compiled (`--rules FILE`, `rules load FILE`).
    /// - Throws: ``ShellError`` when the file cannot be read, or `invalid_rules` as
    ///   `FILE:line:column: reason (at rules/…)` when it does not compile.
    static func rules(fromFile file: String) throws(ShellError) -> Ruleset {
        let text: String
        do {
            text = try FileAccess.readText(file)
        } catch {
            throw .command(error.code, error.message)
        }
        do {
            return try Ruleset(text: text)
        } catch {
            throw .command(error.code, "\(file):\(error.message)")
        }
    }

    /// The open rules, as a document.
    static let openRulesText = #"{"rules": {".read": true, ".write": true}}"#

    /// Puts `rules` in force and says what that did.
    private func putInForce(_ rules: Ruleset, from file: String?, at position: SourcePosition?) throws(ShellError) -> CommandResult {
        let server = try administration(for: "rules load")
        let revoked: Int
        do throws(StoreError) {
            revoked = try server.setRules(rules)
        } catch {
            throw .command(error.code, "\(error.message); the rules in force are unchanged", at: position)
        }
        settle()
        var text: String
        if let file {
            text = "loaded \(file): \(Self.ruleCounts(rules))"
        } else {
            text = "the rules are open: everyone may read and write"
        }
        if revoked > 0 { text += "; \(revoked) \(revoked == 1 ? "listen" : "listens") no longer allowed, cancelled" }
        if case .directory = ember.persistence {
            text += ember.administration?.savesRules == false ? " (not saved: the database is read-only)" : " (saved with the database)"
        }
        return .report(text: text, json: .object([
            ("ok", .bool(true)), ("open", .bool(rules.isOpen)), ("rules", .int(Int64(rules.entries.count))),
            ("revokedListens", .int(Int64(revoked))),
        ]))
    }

    /// Prints one rules check as it happens (`rules trace on`), evaluated again with every
    /// sub-expression traced.
    func printRuleCheck(_ check: RuleCheck, client: ClientName) {
        let who = check.who
        let decisions = check.traced()
        if isJSON {
            output.writeEvent(JSONValue.object([("rules", Self.json(decisions, client: client, who: who))]).serialized() + "\n")
            return
        }
        var lines: [String] = []
        for decision in decisions {
            let explanation = decision.explanation(as: who)
            lines.append(style.dim("[rules] \(client): ") + (decision.allowed ? explanation[0] : style.warning(explanation[0])))
            lines += explanation.dropFirst().map { style.dim("        " + $0) }
        }
        output.writeEvent(lines.joined(separator: "\n") + "\n")
    }

    /// `explain`: the current client's last rules check, evaluated again with every
    /// sub-expression traced.
    func explain() throws(ShellError) -> CommandResult {
        let name = database.name
        let server = try administration(for: "explain")
        guard let check = server.lastRuleCheck(of: name) else {
            let why =
                server.rules.isOpen
                ? "the rules are open: everything \(name) does is allowed without a check (rules load FILE sets rules)"
                : "nothing \(name) did in this session was checked by the rules yet"
            return .report(text: why, json: .object([("client", .string(name.rawValue)), ("checked", .bool(false))]))
        }
        let who = check.who
        let decisions = check.traced()
        let lines = decisions.flatMap { decision in
            let explanation = decision.explanation(as: who)
            return [decision.allowed ? style.ok(explanation[0]) : style.warning(explanation[0])] + explanation.dropFirst()
        }
        return .report(text: lines.joined(separator: "\n"), json: Self.json(decisions, client: name, who: who))
    }

    /// `rules coverage`: each rule with how often it was evaluated and how it came out.
    private func coverage(of server: ServerAdministration) -> CommandResult {
        let report = server.coverage.report(for: server.rules)
        let json = JSONValue.array(report.map { entry, counts in
            .object([
                ("path", .string(entry.rulePath)), ("rule", .string(entry.kind.rawValue)), ("expression", .string(entry.source)),
                ("evaluations", .int(Int64(counts.evaluations))), ("true", .int(Int64(counts.allowed))),
                ("false", .int(Int64(counts.denied))), ("errors", .int(Int64(counts.errors))),
            ])
        })
        guard !server.rules.isOpen else {
            return .report(text: style.dim("(the rules are open: nothing is evaluated)"), json: json)
        }
        let header = ["evals", "true", "false", "errors", "rule"]
        var rows = report.map { entry, counts in
            ["\(counts.evaluations)", "\(counts.allowed)", "\(counts.denied)", "\(counts.errors)",
             "\(entry.rulePath) \(entry.kind.rawValue) \(JSONValue.string(entry.source).serialized())"]
        }
        rows.insert(header, at: 0)
        let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
        let lines = rows.enumerated().map { index, row in
            let text = (0..<4).map { String(repeating: " ", count: widths[$0] - row[$0].count) + row[$0] }.joined(separator: "  ")
                + "  " + row[4]
            if index == 0 { return style.dim(text) }
            return report[index - 1].counts.evaluations == 0 ? style.warning(text) : text
        }
        return .report(text: lines.joined(separator: "\n"), json: json)
    }

    /// Who a check was made for: the uid, or `nobody` (not signed in).
    /// Hears the server's rules checks while `rules trace` prints them or the viewer shows
    /// them (the server reports checks only while someone listens).
    func watchRuleChecks() {
        guard state.tracesRules || viewer != nil else {
            ember.onRuleCheck = nil
            return
        }
        ember.onRuleCheck = { [unowned self] name, check in
            if viewer != nil {
                state.ruleLog.append((name, check))
                if state.ruleLog.count > 200 { state.ruleLog.removeFirst() }
            }
            if state.tracesRules { printRuleCheck(check, client: name) }
        }
    }

    /// A rules check as the viewer lists it: who, the decision, and the rule that made it.
    func ruleCheckJSON(_ check: RuleCheck, client: ClientName) -> JSONValue {
        let who = check.who
        let explanation = check.decisions.flatMap { $0.explanation(as: who) }
        return .object([
            ("client", .string(client.rawValue)), ("allowed", .bool(check.allowed)),
            ("decision", .string(explanation.first ?? "")), ("explanation", .array(explanation.dropFirst().map(JSONValue.string))),
        ])
    }

    private static func json(_ decisions: [AccessDecision], client: ClientName, who: String) -> JSONValue {
        .object([
            ("client", .string(client.rawValue)), ("as", .string(who)),
            ("allowed", .bool(decisions.allSatisfy(\.allowed))),
            ("decisions", .array(decisions.map { decision in
                .object([
                    ("summary", .string(decision.summary(as: who))), ("allowed", .bool(decision.allowed)),
                    ("steps", .array(decision.steps.map { step in
                        .object([
                            ("path", .string(step.path.description)), ("rulePath", .string(step.rulePath)),
                            ("rule", .string(step.outcome.rule.kind.rawValue)), ("expression", .string(step.outcome.rule.source)),
                            ("verdict", .string(step.outcome.verdict)),
                            ("trace", .array(step.outcome.trace.map { .object([("expression", .string($0.expression)), ("value", .string($0.value))]) })),
                        ])
                    })),
                ])
            })),
        ])
    }
}

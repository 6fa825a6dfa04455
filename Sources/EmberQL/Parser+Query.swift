import EmberCore

/// Query modifiers: `orderBy ...`, limits and bounds, checked as ``EmberCore/QueryParams``
/// checks them, with each of its errors placed on the offending word.
extension Parser {
    /// The keyword of `timeout MS` (`get` and `ls`), lowercased.
    static let timeoutKeyword = "timeout"

    /// The modifiers (and, for `watch`, the event names; for `get` and `ls`, `timeout MS`) up
    /// to the end of the input, in any order. Events repeated are kept once, in the order first
    /// written.
    mutating func query(events allowEvents: Bool, timeout allowTimeout: Bool = false, at location: String = "") throws(ParseFailure) -> (
        QueryExpression, [EventType]
    ) {
        var params = QueryParams()
        var written: [String] = []
        var events: [EventType] = []
        var connectTimeout: Int64?
        let eventNames = EventType.allCases.map(\.rawValue)
        let candidates = QueryModifier.names + (allowEvents ? eventNames : []) + (allowTimeout ? [Self.timeoutKeyword] : [])
        while true {
            try offer { .keyword(partial: $0, candidates: candidates) }
            let keyword = try lexer.next(.word)
            if keyword.isEnd { break }
            if allowEvents, let name = keyword.keyword, let event = EventType(rawValue: name) {
                if !events.contains(event) { events.append(event) }
                continue
            }
            if allowTimeout, keyword.keyword == Self.timeoutKeyword {
                if connectTimeout != nil { throw .error("'timeout' is given twice", at: keyword) }
                try offer { _ in .none }
                connectTimeout = try milliseconds(for: Self.timeoutKeyword, in: .connectTimeout)
                continue
            }
            guard let name = keyword.keyword, let modifier = QueryModifier(word: name) else {
                throw unknownModifier(keyword, allowEvents: allowEvents, allowTimeout: allowTimeout)
            }
            var tokens = [keyword]
            switch modifier {
            case .orderBy:
                params = try orderBy(keyword, params: params, tokens: &tokens, location: location)
            case .limitToFirst, .limitToLast:
                try offer { _ in .none }
                let count = try lexer.next(.word)
                guard case .number(let text) = count.token, let limit = Int(text), limit > 0 else {
                    throw .error("'\(modifier.rawValue)' needs a positive integer, found \(count.token.shown)", at: count)
                }
                tokens.append(count)
                do {
                    params = modifier == .limitToFirst ? try params.limitedToFirst(limit) : try params.limitedToLast(limit)
                } catch {
                    throw self.error(error.message, from: keyword, to: count)
                }
            case .startAt, .startAfter, .endAt, .endBefore, .equalTo:
                params = try bound(modifier, keyword, params: params, tokens: &tokens, candidates: candidates)
            }
            written.append(tokens.map { lexer.text($0.range) }.joined(separator: " "))
        }
        var query = written.isEmpty ? QueryExpression.none : QueryExpression(params: params, text: written.joined(separator: " "))
        query.connectTimeout = connectTimeout
        return (query, events)
    }

    /// `orderBy key | value | priority | child PATH`.
    private mutating func orderBy(
        _ keyword: LexedToken, params: QueryParams, tokens: inout [LexedToken], location: String
    ) throws(ParseFailure) -> QueryParams {
        try offer { .keyword(partial: $0, candidates: ["key", "value", "priority", "child"]) }
        let kind = try lexer.next(.word)
        tokens.append(kind)
        let index: Index
        switch kind.keyword {
        case "key": index = .key
        case "value": index = .value
        case "priority": index = .priority
        case "child":
            try offer { .childPath(partial: $0, location: location) }
            let child = try lexer.next(.word)
            guard let text = child.text else {
                throw .error("'orderBy child' needs a child path, found \(child.token.shown)", at: child)
            }
            tokens.append(child)
            do {
                index = .child(try Path(validating: text))
            } catch {
                throw .error(error.message, at: child)
            }
        default:
            throw .error("orderBy needs key, value, priority or child PATH, found \(kind.token.shown)", at: kind)
        }
        do {
            return try params.orderedBy(index)
        } catch {
            throw self.error(error.message, from: keyword, to: tokens[tokens.count - 1])
        }
    }

    /// `startAt V [KEY]` and the other bounds. V is a leaf; KEY is a word that is no keyword.
    private mutating func bound(
        _ modifier: QueryModifier, _ keyword: LexedToken, params: QueryParams, tokens: inout [LexedToken],
        candidates: [String]
    ) throws(ParseFailure) -> QueryParams {
        try offer { _ in .none }
        let first = try lexer.peek(.value)
        let json = try RelaxedJSON.value(from: &lexer)
        let valueToken = LexedToken(token: first.token, position: first.position, range: first.range.lowerBound..<lexer.index)
        let value: LeafValue?
        switch json {
        case .null: value = nil
        case .bool(let bool): value = .bool(bool)
        case .int(let int): value = .int(int)
        case .double(let double): value = LeafValue(normalizing: double)
        case .string(let string): value = .string(string)
        default:
            throw .error(
                "'\(modifier.rawValue)' needs a number, a string, true, false or null, found \(first.token.shown)",
                at: valueToken)
        }
        tokens.append(valueToken)

        try offer { .keyword(partial: $0, candidates: candidates) }
        var key: (ChildKey, LexedToken)?
        let next = try lexer.peek(.word)
        let keywords = QueryModifier.lowercasedNames.union(candidates.map { $0.lowercased() })
        if let text = next.text, !(next.keyword.map(keywords.contains) ?? false) {
            _ = try lexer.next(.word)
            tokens.append(next)
            do {
                key = (try ChildKey(validating: text), next)
            } catch {
                throw .error(error.message, at: next)
            }
        }

        func apply(_ key: ChildKey?) throws(DatabaseError) -> QueryParams {
            switch modifier {
            case .startAt: try params.startingAt(value, key: key)
            case .startAfter: try params.startingAfter(value, key: key)
            case .endAt: try params.endingAt(value, key: key)
            case .endBefore: try params.endingBefore(value, key: key)
            default: try params.equalTo(value, key: key)
            }
        }
        let repeated =
            switch modifier {
            case .startAt, .startAfter: params.start != nil
            case .endAt, .endBefore: params.end != nil
            default: params.start != nil || params.end != nil
            }
        do {
            return try apply(key?.0)
        } catch {
            if repeated { throw self.error(error.message, from: keyword, to: tokens[tokens.count - 1]) }
            if let key, (try? apply(nil)) != nil { throw .error(error.message, at: key.1) }
            throw .error(error.message, at: valueToken)
        }
    }

    /// What people coming from SQL, Mongo or other query languages type for a modifier
    /// (issue 37: `gte` got no "did you mean").
    static let modifierSynonyms: [String: String] = [
        "gte": "startAt", "ge": "startAt", ">=": "startAt", "from": "startAt", "after": "startAfter", "gt": "startAfter",
        "lte": "endAt", "le": "endAt", "<=": "endAt", "to": "endAt", "before": "endBefore", "lt": "endBefore",
        "eq": "equalTo", "equals": "equalTo", "is": "equalTo", "==": "equalTo",
        "limit": "limitToFirst", "first": "limitToFirst", "top": "limitToFirst", "head": "limitToFirst",
        "last": "limitToLast", "tail": "limitToLast",
        "orderbychild": "orderBy child", "orderbykey": "orderBy key", "orderbyvalue": "orderBy value",
        "orderbypriority": "orderBy priority", "sort": "orderBy", "sortby": "orderBy", "order": "orderBy",
    ]

    /// The error for a word where a modifier (or an event) was expected.
    private func unknownModifier(_ token: LexedToken, allowEvents: Bool, allowTimeout: Bool) -> ParseFailure {
        let modifiers = (QueryModifier.names + (allowTimeout ? [Self.timeoutKeyword] : [])).joined(separator: ", ")
        let events = EventType.allCases.map(\.rawValue).joined(separator: ", ")
        guard token.keyword != nil else {
            return .error(
                "expected a query modifier\(allowEvents ? " or an event" : ""), found \(token.token.shown)", at: token)
        }
        let candidates = QueryModifier.names + (allowTimeout ? [Self.timeoutKeyword] : []) + (allowEvents ? EventType.allCases.map(\.rawValue) : [])
        let typo = token.text.flatMap { Self.modifierSynonyms[$0.lowercased()] ?? Suggestion.closest(to: $0, in: candidates) }
            .map { "did you mean \($0)? " } ?? ""
        if allowEvents {
            return .error(
                "unknown modifier or event \(token.token.shown) (\(typo)expected \(modifiers), or an event: \(events))", at: token)
        }
        return .error("unknown modifier \(token.token.shown) (\(typo)expected \(modifiers))", at: token)
    }
}

import CLua
import CLuaSupport

/// Completing Lua globals, fields and methods for the REPL's Lua mode (modelled on Tarantool's
/// console completer).
///
/// Everything here only reads the state: keys are found by walking tables with `lua_next` and
/// comparing bytes, metatables are read with `lua_getmetatable`, and nothing is pushed that could
/// allocate, so no Lua error (and no `__gc` finalizer) can happen while Swift frames are on the
/// stack.
extension LuaState {
    /// Completions for the Lua expression being typed at the end of `line`, each the whole line
    /// completed (the REPL's line completer replaces the line with one of them).
    ///
    /// The expression is the longest suffix of `line` made of identifier characters, `.` and `:`
    /// (`db:re` in `print(db:re`); what comes before it is kept in every candidate.
    ///
    /// - A bare word completes against the Lua keywords and the keys of the globals table, then
    ///   those of the `__index` tables of its metatable (a script's environment
    ///   `setmetatable({}, {__index = base})`, chained).
    /// - `a.b.c` resolves `a`, then `b`, by raw lookups that follow the `__index` tables of
    ///   metatables when they find nothing (at most 8 of them; `__index` functions are never
    ///   called), then completes `c` against the keys of the resolved value: a table's own keys
    ///   and those of its `__index` chain, or for a userdata or a string, those of the `__index`
    ///   chain of its metatable.
    /// - After `:` only keys whose value is a function are offered. A function candidate gets `(`
    ///   appended; other values get nothing.
    /// - A method called on an Ember object (`db:ref('a'):o`, `r:get().re`) is never run: the
    ///   object's metatable says in `__returns` the type of object it gives, and the chain goes on
    ///   with that type's `__methods` and `__fields`. A call of anything else offers nothing.
    ///
    /// Only keys that are identifiers (and not keywords) are offered. Nothing is offered when the
    /// expression is not a name path with calls (`1.5`, `a:b.c`, `("s"):up`), when a name does not resolve,
    /// or when `globals` belongs to another state or its state is gone.
    ///
    /// Never raises, never runs Lua code and leaves the stack as it was.
    ///
    /// ```swift
    /// try lua.run(chunk: "db = {read = function() end, remove = function() end, size = 3}", name: "=repl")
    /// lua.completions(for: "x = string.fo")   // ["x = string.format("]
    /// lua.completions(for: "print(db:re")     // ["print(db:read(", "print(db:remove("]
    /// lua.completions(for: "db.s")            // ["db.size"]
    /// ```
    ///
    /// - Parameters:
    ///   - line: the line typed so far.
    ///   - globals: the table a bare word and the first name of a path are looked up in (a
    ///     script's environment); the state's global table when `nil`.
    /// - Returns: the candidates, sorted, without duplicates, at most 200 of them.
    /// - Complexity: O(n) in the size of the tables walked: each name of the path is found by a
    ///   walk of the tables it is looked up in, and at most 2000 keys of each table of the last
    ///   value's `__index` chain are examined.
    public func completions(for line: String, globals: LuaTableReference? = nil) -> [String] {
        guard let request = LuaCompletionRequest(line: line) else { return [] }
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        // the root, a copy of the current value, a table being searched, its key and value, a
        // metatable and its key and value, with room to spare
        guard lua_checkstack(state, 16) != 0 else { return [] }
        if let globals {
            guard globals.owner === self, ember_lua_push_ref(state, globals.reference) == LUA_TTABLE else {
                return []
            }
        } else {
            ember_lua_push_globals(state)
        }
        // stack: ... | current value, or the metatable of the Ember object a call gives
        var isTypeMetatable = false
        for segment in request.path {
            if !isTypeMetatable, !segment.isCalled, replaceTopWithField(segment.name) { continue }
            // a call, or a field an `__index` function serves: what an Ember object's method or
            // field gives, by its metatable's `__returns` (nothing is called)
            guard replaceTopWithReturnedType(segment.name, fromMetatable: isTypeMetatable) else { return [] }
            isTypeMetatable = true
        }
        var found: [String: Int32] = [:]
        if isTypeMetatable {
            collectMembers(ofMetatableAt: lua_gettop(state), startingWith: request.word, methods: request.isMethod, into: &found)
        } else {
            collectFields(startingWith: request.word, methods: request.isMethod, into: &found)
        }
        var candidates: [String] = []
        candidates.reserveCapacity(found.count)
        for (name, type) in found where !request.isMethod || type == LUA_TFUNCTION {
            candidates.append(request.head + name + (type == LUA_TFUNCTION ? "(" : ""))
        }
        if request.path.isEmpty {
            for keyword in Self.luaKeywords where keyword.utf8.starts(with: request.word) {
                candidates.append(request.head + keyword)
            }
        }
        candidates.sort()
        return Array(candidates.prefix(Self.completionLimit))
    }

    /// A reference to the state's global table, to pass as the `globals` of
    /// ``completions(for:globals:)``.
    ///
    /// - Throws: ``LuaError`` of kind `.memory` when the registry cannot hold one more reference.
    public func globalsTableReference() throws(LuaError) -> LuaTableReference {
        let base = lua_gettop(state)
        guard lua_checkstack(state, 3) != 0 else {
            throw LuaError(.memory, message: "Lua stack overflow")
        }
        ember_lua_push_globals(state)
        return try referenceTable(base: base)
    }

    /// A reference to the table held by the global `name` (a raw lookup).
    ///
    /// - Throws: ``LuaError`` of kind `.conversion` when the global is not a table, `.memory`
    ///   when the registry cannot hold one more reference.
    func tableReference(ofGlobal name: String) throws(LuaError) -> LuaTableReference {
        let base = lua_gettop(state)
        guard lua_checkstack(state, 8) != 0 else {
            throw LuaError(.memory, message: "Lua stack overflow")
        }
        ember_lua_push_globals(state)
        guard pushRawField(Array(name.utf8), ofTableAt: base + 1), lua_type(state, -1) == LUA_TTABLE else {
            lua_settop(state, base)
            throw LuaError(.conversion, message: "the global '\(name)' is not a table")
        }
        return try referenceTable(base: base)
    }

    /// Stores the table on top of the stack in the registry and wraps the reference; the stack is
    /// reset to `base` either way.
    private func referenceTable(base: Int32) throws(LuaError) -> LuaTableReference {
        LuaTableReference(owner: self, reference: try popIntoRegistry(base: base))
    }

    // MARK: walking tables without side effects

    /// The Lua keywords, offered for a bare word and never offered as field names.
    private static let luaKeywords: [String] = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
        "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    ]

    /// How many candidates ``completions(for:globals:)`` returns at most.
    private static let completionLimit = 200

    /// How many keys of one table a completion examines at most.
    private static let completionKeyLimit = 2000

    /// How many `__index` tables a lookup or a completion follows at most.
    private static let completionIndexDepth = 8

    /// The UTF-8 of `__index`.
    private static let indexFieldName = Array("__index".utf8)

    private static let methodsFieldName = Array("__methods".utf8)

    private static let fieldsFieldName = Array("__fields".utf8)

    private static let returnsFieldName = Array("__returns".utf8)

    /// Replaces the value on top of the stack with its field `name`: a raw lookup in a table,
    /// then in the `__index` tables of metatables while nothing is found. Returns `false` when
    /// the field is `nil` or cannot be reached without calling a function (the top is then some
    /// value of the chain). Needs 4 free stack slots.
    private func replaceTopWithField(_ name: [UInt8]) -> Bool {
        let top = lua_gettop(state)
        for _ in 0...Self.completionIndexDepth {
            if lua_type(state, top) == LUA_TTABLE, pushRawField(name, ofTableAt: top) {
                guard lua_type(state, -1) != LUA_TNIL else { return false }
                lua_copy(state, -1, top)
                lua_settop(state, top)
                return true
            }
            guard replaceTopWithIndexTable() else { return false }
        }
        return false
    }

    /// Replaces the value on top of the stack with the `__index` of its metatable when that is a
    /// table, and returns whether it did (otherwise the stack is unchanged). Needs 4 free stack
    /// slots.
    private func replaceTopWithIndexTable() -> Bool {
        let top = lua_gettop(state)
        guard lua_getmetatable(state, top) != 0 else { return false }
        // stack: ... | value | metatable
        let found = pushRawField(Self.indexFieldName, ofTableAt: top + 1) && lua_type(state, -1) == LUA_TTABLE
        if found {
            lua_copy(state, -1, top)
        }
        lua_settop(state, top)
        return found
    }

    /// Pushes the value of the string key `name` of the table at the absolute index `table`,
    /// found by walking its keys (raw, allocating nothing), and returns `true`; returns `false`,
    /// pushing nothing, when no key has that name. Needs 2 free stack slots.
    private func pushRawField(_ name: [UInt8], ofTableAt table: Int32) -> Bool {
        let level = lua_gettop(state)
        lua_pushnil(state)
        while lua_next(state, table) != 0 {
            // stack: ... | key | value
            if lua_type(state, -2) == LUA_TSTRING, let key = stringBytes(at: -2), key.elementsEqual(name) {
                lua_copy(state, -1, level + 1)
                lua_settop(state, level + 1)
                return true
            }
            lua_settop(state, -2)
        }
        // lua_next popped the last key
        return false
    }

    /// Adds to `found` the identifier keys starting with `word` of the value on top of the stack
    /// and of its `__index` chain, each with the type of its value (the first one found wins, as
    /// a lookup would find it). Leaves the stack as it was. Needs 6 free stack slots.
    private func collectFields(startingWith word: [UInt8], methods: Bool, into found: inout [String: Int32]) {
        let top = lua_gettop(state)
        defer { lua_settop(state, top) }
        lua_pushvalue(state, top)
        let current = top + 1
        collectTypeMembers(ofValueAt: current, startingWith: word, methods: methods, into: &found)
        var visited: Set<UnsafeRawPointer> = []
        for _ in 0...Self.completionIndexDepth {
            if lua_type(state, current) == LUA_TTABLE, let table = lua_topointer(state, current),
                visited.insert(table).inserted
            {
                collectKeys(ofTableAt: current, startingWith: word, into: &found)
            }
            guard replaceTopWithIndexTable() else { return }
        }
    }

    /// The members of an Ember object (a database, reference, query, snapshot, ...): its
    /// metatable keeps its methods in `__methods` and its fields in `__fields` (an `__index`
    /// function serves them, which completion never calls). After `:` the methods are offered,
    /// after `.` the fields (as values, without `(`).
    private func collectTypeMembers(
        ofValueAt index: Int32, startingWith word: [UInt8], methods: Bool, into found: inout [String: Int32]
    ) {
        guard lua_type(state, index) == LUA_TUSERDATA else { return }
        let level = lua_gettop(state)
        defer { lua_settop(state, level) }
        guard lua_getmetatable(state, index) != 0 else { return }
        collectMembers(ofMetatableAt: lua_gettop(state), startingWith: word, methods: methods, into: &found)
    }

    /// Adds to `found` the methods (or fields) an Ember object type's metatable, at the absolute
    /// index `metatable`, lists in `__methods` (or `__fields`). Leaves the stack as it was.
    /// Needs 4 free stack slots.
    private func collectMembers(
        ofMetatableAt metatable: Int32, startingWith word: [UInt8], methods: Bool, into found: inout [String: Int32]
    ) {
        let level = lua_gettop(state)
        defer { lua_settop(state, level) }
        let name = methods ? Self.methodsFieldName : Self.fieldsFieldName
        guard pushRawField(name, ofTableAt: metatable), lua_type(state, -1) == LUA_TTABLE else { return }
        collectKeys(ofTableAt: lua_gettop(state), startingWith: word, into: &found, as: methods ? LUA_TFUNCTION : LUA_TSTRING)
    }

    /// Replaces the top of the stack, an Ember object (or, when `fromMetatable`, the metatable
    /// of its type), with the metatable of the type its method or field `name` gives, as its
    /// metatable's `__returns` says; returns `false` when it says nothing (the top is then some
    /// value). Never calls anything. Needs 4 free stack slots.
    private func replaceTopWithReturnedType(_ name: [UInt8], fromMetatable: Bool) -> Bool {
        let top = lua_gettop(state)
        if !fromMetatable {
            guard lua_type(state, top) == LUA_TUSERDATA, lua_getmetatable(state, top) != 0 else { return false }
            lua_copy(state, -1, top)
            lua_settop(state, top)
        }
        guard lua_type(state, top) == LUA_TTABLE,
            pushRawField(Self.returnsFieldName, ofTableAt: top), lua_type(state, -1) == LUA_TTABLE,
            pushRawField(name, ofTableAt: top + 1), lua_type(state, -1) == LUA_TNUMBER
        else {
            lua_settop(state, top)
            return false
        }
        let type = lua_tointegerx(state, -1, nil)
        lua_settop(state, top)
        guard (0..<lua_Integer(EMBER_LUA_OBJECT_TYPES)).contains(type),
            ember_lua_push_type_metatable(state, Int32(type)) == LUA_TTABLE
        else {
            lua_settop(state, top)
            return false
        }
        lua_copy(state, -1, top)
        lua_settop(state, top)
        return true
    }

    /// Adds to `found` the identifier keys starting with `word` among the first
    /// ``completionKeyLimit`` keys of the table at the absolute index `table`. Leaves the stack as
    /// it was. Needs 2 free stack slots.
    private func collectKeys(
        ofTableAt table: Int32, startingWith word: [UInt8], into found: inout [String: Int32], as type: Int32? = nil
    ) {
        let level = lua_gettop(state)
        defer { lua_settop(state, level) }
        lua_pushnil(state)
        var examined = 0
        while examined < Self.completionKeyLimit, lua_next(state, table) != 0 {
            examined += 1
            // stack: ... | key | value
            defer { lua_settop(state, -2) }
            guard lua_type(state, -2) == LUA_TSTRING, let key = stringBytes(at: -2), key.starts(with: word),
                LuaCompletionRequest.isIdentifier(key)
            else { continue }
            let name = String(decoding: key, as: UTF8.self)
            guard found[name] == nil, !Self.luaKeywords.contains(name) else { continue }
            found[name] = type ?? lua_type(state, -1)
        }
    }

    /// The bytes of the string at `index` (which must be a string: a number would be converted
    /// in place), valid while it stays on the stack.
    private func stringBytes(at index: Int32) -> UnsafeRawBufferPointer? {
        var length = 0
        guard let bytes = lua_tolstring(state, index, &length) else { return nil }
        return UnsafeRawBufferPointer(start: bytes, count: length)
    }
}

/// The end of a line split for completion: `print(db:re` is the head `print(db:`, the path
/// `["db"]`, a method, and the word `re`; `db:ref('a'):o` has the path `db`, `ref` called.
struct LuaCompletionRequest {
    /// A name before the word, and whether it is called (`ref` in `db:ref('a'):o`).
    struct Segment {
        /// The name, as UTF-8.
        let name: [UInt8]
        /// Whether a parenthesised argument list follows it.
        let isCalled: Bool
    }

    /// The line up to the word being completed, kept in every candidate.
    let head: String

    /// The names before the word (`a` and `b` in `a.b.c`); empty for a bare word.
    let path: [Segment]

    /// Whether the word follows `:` (only methods are offered).
    let isMethod: Bool

    /// The word being completed, as UTF-8; possibly empty.
    let word: [UInt8]

    /// Splits the expression at the end of `line`, or returns `nil` when it is not a name path
    /// with method calls (a number, an empty name as in `a..b.` or `("s"):up`, a `:` before a
    /// name that is not called, a `...` or `::`, parentheses that do not balance).
    init?(line: String) {
        let bytes = Array(line.utf8)
        var start = bytes.count
        while start > 0 {
            let byte = bytes[start - 1]
            if Self.isIdentifierByte(byte) || byte == .dot || byte == .colon {
                start -= 1
            } else if byte == .closing, let open = Self.opening(of: start - 1, in: bytes), open > 0,
                Self.isIdentifierByte(bytes[open - 1])
            {
                // the arguments of a call of a name
                start = open
            } else {
                break
            }
        }
        var segments: [(separator: UInt8?, name: [UInt8], isCalled: Bool)] = []
        var separator: UInt8?
        var index = start
        while true {
            var name: [UInt8] = []
            while index < bytes.count, Self.isIdentifierByte(bytes[index]) {
                name.append(bytes[index])
                index += 1
            }
            var isCalled = false
            if index < bytes.count, bytes[index] == .opening {
                guard let close = Self.closing(of: index, in: bytes) else { return nil }
                isCalled = true
                index = close + 1
            }
            segments.append((separator, name, isCalled))
            guard index < bytes.count else { break }
            let byte = bytes[index]
            guard byte == .dot || byte == .colon else { return nil }
            var runEnd = index
            while runEnd < bytes.count, bytes[runEnd] == byte { runEnd += 1 }
            switch runEnd - index {
            case 1:
                separator = byte
            case 2 where byte == .dot:
                // `..` is concatenation: the expression starts after it
                segments = []
                separator = nil
                start = runEnd
            default:
                // `...` and `::` are no part of a name path
                return nil
            }
            index = runEnd
        }
        let last = segments.removeLast()
        guard !last.isCalled,
            segments.allSatisfy({ !$0.name.isEmpty && !Self.isDigit($0.name[0]) && ($0.separator != .colon || $0.isCalled) }),
            last.name.first.map({ !Self.isDigit($0) }) ?? true
        else { return nil }
        self.head = String(decoding: bytes[..<(bytes.count - last.name.count)], as: UTF8.self)
        self.path = segments.map { Segment(name: $0.name, isCalled: $0.isCalled) }
        self.isMethod = last.separator == .colon
        self.word = last.name
    }

    /// The index of the `(` that the `)` at `close` closes, or `nil`; quoted strings are
    /// skipped (escapes are not read: a completion may miss, never run anything).
    static func opening(of close: Int, in bytes: [UInt8]) -> Int? {
        matching(close, in: bytes, step: -1)
    }

    /// The index of the `)` that closes the `(` at `open`, or `nil`; quoted strings are skipped.
    static func closing(of open: Int, in bytes: [UInt8]) -> Int? {
        matching(open, in: bytes, step: 1)
    }

    /// The bracket that matches the one at `start`, scanning by `step` (1: forward from a `(`,
    /// -1: backward from a `)`), quoted strings skipped.
    private static func matching(_ start: Int, in bytes: [UInt8], step: Int) -> Int? {
        let (deeper, shallower): (UInt8, UInt8) = step > 0 ? (.opening, .closing) : (.closing, .opening)
        var depth = 0
        var index = start
        while bytes.indices.contains(index) {
            switch bytes[index] {
            case deeper: depth += 1
            case shallower:
                depth -= 1
                if depth == 0 { return index }
            case .singleQuote, .doubleQuote:
                let quote = bytes[index]
                index += step
                while bytes.indices.contains(index), bytes[index] != quote { index += step }
                if !bytes.indices.contains(index) { return nil }
            default: break
            }
            index += step
        }
        return nil
    }

    /// Whether `bytes` is a Lua name: a letter or `_`, then letters, digits or `_` (keywords
    /// included).
    static func isIdentifier(_ bytes: some Collection<UInt8>) -> Bool {
        guard let first = bytes.first, !isDigit(first) else { return false }
        return bytes.allSatisfy(isIdentifierByte)
    }

    /// Whether `byte` may appear in a Lua name (ASCII letters, digits and `_`).
    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
            true
        default:
            isDigit(byte)
        }
    }

    /// Whether `byte` is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}

extension UInt8 {
    /// `.` in UTF-8.
    fileprivate static let dot = UInt8(ascii: ".")

    /// `:` in UTF-8.
    fileprivate static let colon = UInt8(ascii: ":")

    /// `(` in UTF-8.
    fileprivate static let opening = UInt8(ascii: "(")

    /// `)` in UTF-8.
    fileprivate static let closing = UInt8(ascii: ")")

    /// `'` in UTF-8.
    fileprivate static let singleQuote = UInt8(ascii: "'")

    /// `"` in UTF-8.
    fileprivate static let doubleQuote = UInt8(ascii: "\"")
}

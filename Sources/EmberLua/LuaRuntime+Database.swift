import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberRules
import EmberServer
import EmberStorage
import EmberWire

/// `db` (a client) and the functions of the `ember` table.
extension LuaRuntime {
    /// `db:ref([path])`, `db:goOffline()`, `db:goOnline()`, `db:auth(claims [, {expires = MS}])`,
    /// `db:signOut()`, `db.name`, `db.uid`.
    func databaseDefinition() -> LuaTypeDefinition {
        var definition = LuaTypeDefinition(type: .database, prefix: "db")
        definition.returns = ["ref": .reference]
        definition.fields = [
            ("name", { call throws(LuaBindingError) in
                call.push(try call.database(at: 1).name.rawValue)
                return .values(1)
            }),
            ("uid", { call throws(LuaBindingError) in
                if let token = try call.database(at: 1).authState.token { call.push(token.uid) } else { call.pushNil() }
                return .values(1)
            }),
        ]
        definition.methods = [
            ("ref", { call throws(LuaBindingError) in
                let database = try call.database(at: 1)
                let path = try call.optionalString(at: 2) ?? "/"
                call.push(try call.attempt { () throws(DatabaseError) in try database.reference(path) })
                return .values(1)
            }),
            ("goOffline", { call throws(LuaBindingError) in
                try call.database(at: 1).goOffline()
                return call.runtime.deliveringFirst(0, on: call.thread)
            }),
            ("goOnline", { call throws(LuaBindingError) in
                try call.database(at: 1).goOnline()
                return call.runtime.deliveringFirst(0, on: call.thread)
            }),
            ("auth", { call throws(LuaBindingError) in
                let database = try call.database(at: 1)
                let claims = try call.claims(at: 2)
                let lifetime = try call.tokenLifetime(optionsAt: 3)
                try call.attempt { () throws(DatabaseError) in _ = try database.signIn(claims: claims, lifetime: lifetime) }
                return call.runtime.deliveringFirst(0, on: call.thread)
            }),
            ("signOut", { call throws(LuaBindingError) in
                try call.database(at: 1).signOut()
                return call.runtime.deliveringFirst(0, on: call.thread)
            }),
        ]
        definition.metamethods = [
            ("__tostring", { call throws(LuaBindingError) in
                call.push("Database(\(try call.database(at: 1).name))")
                return .values(1)
            }),
            ("__eq", { call throws(LuaBindingError) in
                call.push(call.object(.database, at: 1, as: Database.self) === call.object(.database, at: 2, as: Database.self))
                return .values(1)
            }),
        ]
        return definition
    }

    /// The functions of the `ember` table.
    func emberFunctions() -> [(String, LuaBinding)] {
        [
            ("client", { call throws(LuaBindingError) in
                let name = try call.string(at: 1, expected: "a client name")
                var offline = false
                var claims: JSONValue?
                if !call.isAbsent(2) {
                    guard call.type(at: 2) == .table else { throw call.wrongType(at: 2, expected: "a table of options") }
                    let type = call.pushField("offline", ofTableAt: 2)
                    if type != .nil {
                        guard type == .boolean else { throw call.error(at: 2, "offline must be a boolean") }
                        offline = call.thread.isTrue(at: -1)
                    }
                    call.thread.setTop(2)
                    if call.pushField("auth", ofTableAt: 2) != .nil {
                        claims = try call.claims(at: -1)
                    }
                    call.thread.setTop(2)
                }
                let runtime = call.runtime
                let database = try call.attempt { () throws(DatabaseError) in
                    let database = try runtime.ember.client(named: name, startOffline: offline)
                    if let claims { try database.signIn(claims: claims) }
                    return database
                }
                call.push(object: database, as: .database)
                return .values(1)
            }),
            ("sleep", { call throws(LuaBindingError) in
                let milliseconds = call.isAbsent(1) ? 0 : try call.milliseconds(at: 1, what: "the time to sleep")
                try call.requireWaiting()
                let deadline = call.runtime.ember.clock.now() + milliseconds
                return call.runtime.suspend(call, on: LuaWait(deadline: deadline, isReady: { false }) { _, _ throws(LuaBindingError) in .values(0) })
            }),
            ("flush", { call throws(LuaBindingError) in
                try call.requireWaiting()
                let ember = call.runtime.ember
                return call.runtime.suspend(call, on: LuaWait(isReady: { ember.isSettled }) { call, outcome throws(LuaBindingError) in
                    if case .failed(let error) = outcome { throw call.failure(error) }
                    return .values(0)
                })
            }),
            ("pushId", { call throws(LuaBindingError) in
                call.push(call.runtime.currentDatabase.pushID())
                return .values(1)
            }),
            ("exec", { call throws(LuaBindingError) in
                let command = try call.string(at: 1, expected: "a command")
                guard let host = call.runtime.host else { throw call.failure(code: ErrorCode.noShell, "there is no shell to run commands") }
                let result: JSONValue
                do throws(LuaHostError) {
                    result = try host.execute(command: command)
                } catch {
                    throw call.failure(code: error.code, error.message)
                }
                try call.push(json: result)
                return .values(1)
            }),
            ("inspect", { call throws(LuaBindingError) in
                // ember.inspect([client]): what `inspect` shows, as data (the shell's command).
                let client = call.isAbsent(1) ? nil : try call.string(at: 1, expected: "a client name")
                guard let host = call.runtime.host else { throw call.failure(code: ErrorCode.noShell, "there is no shell to inspect with") }
                let result: JSONValue
                do throws(LuaHostError) {
                    result = try host.execute(command: client.map { "inspect \($0)" } ?? "inspect")
                } catch {
                    throw call.failure(code: error.code, error.message)
                }
                try call.push(json: result)
                return .values(1)
            }),
            ("exit", { call throws(LuaBindingError) in
                // ember.exit([status]): as os.exit, true is 0 and false is 1 (issue 37: a script
                // could not choose its exit status).
                var status: Int64 = 0
                switch call.type(at: 1) {
                case .noValue, .nil: status = 0
                case .boolean: status = call.thread.isTrue(at: 1) ? 0 : 1
                default:
                    status = try call.integer(at: 1, expected: "an exit status from 0 to 255")
                    guard (0...255).contains(status) else { throw call.error(at: 1, "an exit status goes from 0 to 255, not \(status)") }
                }
                call.runtime.host?.requestExit(status: Int32(status))
                throw call.failure(code: ErrorCode.exit, "exit \(status)")
            }),
            ("command", { call throws(LuaBindingError) in try call.runtime.addCommand(call) }),
            ("rules", { call throws(LuaBindingError) in
                // ember.rules(): the rules document in force (nil: the open rules);
                // ember.rules(text): compiles text and puts it in force.
                let ember = call.runtime.ember
                guard let server = ember.administration else {
                    guard let remote = ember.remoteServer else {
                        throw call.failure(code: ErrorCode.needsEmbeddedServer, "ember.rules needs a server")
                    }
                    return try call.runtime.remoteRules(call, on: remote)
                }
                guard !call.isAbsent(1) else {
                    if let source = server.rules.source { call.push(source) } else { call.pushNil() }
                    return .values(1)
                }
                let text = try call.string(at: 1, expected: "a rules document {\"rules\": {...}}")
                let rules: Ruleset
                do throws(RulesError) {
                    rules = try Ruleset(text: text)
                } catch {
                    throw call.failure(code: error.code, error.message)
                }
                do throws(StoreError) {
                    try server.setRules(rules)
                } catch {
                    throw call.failure(code: error.code, error.message)
                }
                return call.runtime.deliveringFirst(0, on: call.thread)
            }),
        ]
    }

    /// `ember.rules([text])` on a server in another process: its rules over REST, as the
    /// session's administrator (``RemoteServer/rules(_:on:completion:)``). A document is
    /// compiled here first, so that its errors are the same as embedded. Waits (a coroutine
    /// suspends; elsewhere the engine runs meanwhile).
    func remoteRules(_ call: LuaCall, on remote: any RemoteServer) throws(LuaBindingError) -> LuaCallResult {
        var text: String?
        if !call.isAbsent(1) {
            let document = try call.string(at: 1, expected: "a rules document {\"rules\": {...}}")
            do throws(RulesError) {
                _ = try Ruleset(text: document)
            } catch {
                throw call.failure(code: error.code, error.message)
            }
            text = document
        }
        try call.requireWaiting()
        let answer = Pending<Result<String, DatabaseError>>()
        remote.rules(text, on: engine, completion: answer.filler)
        let reads = text == nil
        return suspend(call, on: LuaWait(isReady: { answer.isFilled }) { call, outcome throws(LuaBindingError) in
            if case .failed(let error) = outcome { throw call.failure(error) }
            switch answer.value! {
            case .success(let document):
                guard reads else { return .values(0) }
                call.push(document)
                return .values(1)
            case .failure(let error):
                throw call.failure(error)
            }
        })
    }

    /// `ember.command{ name =, args =, help =, run = }`.
    func addCommand(_ call: LuaCall) throws(LuaBindingError) -> LuaCallResult {
        guard call.type(at: 1) == .table else { throw call.wrongType(at: 1, expected: "a table {name =, args =, help =, run =}") }
        func text(_ key: String, required: Bool) throws(LuaBindingError) -> String {
            defer { call.thread.setTop(1) }
            let type = call.pushField(key, ofTableAt: 1)
            if type == .nil && !required { return "" }
            guard type == .string else { throw call.failure(code: ErrorCode.invalidArgument, "the field '\(key)' must be a string") }
            return try call.string(at: -1)
        }
        let name = try text("name", required: true)
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII,
            name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") })
        else {
            throw call.failure(
                code: ErrorCode.invalidArgument, "the command name '\(name)' must be a word (a letter, then letters, digits, '-' or '_')")
        }
        let syntax = try text("args", required: false)
        let summary = try text("help", required: false)
        guard call.pushField("run", ofTableAt: 1) == .function else {
            throw call.failure(code: ErrorCode.invalidArgument, "the field 'run' must be a function")
        }
        let function = anchor(valueAt: -1, in: call.thread)
        call.thread.setTop(1)
        let command = LuaCommand(name: name, syntax: syntax, summary: summary, origin: loadingPlugin ?? "lua", function: function)
        guard let host else {
            release(function)
            throw call.failure(code: ErrorCode.noShell, "there is no shell to add commands to")
        }
        do {
            try host.register(command)
        } catch {
            release(function)
            throw call.failure(code: error.code, error.message)
        }
        if let index = commands.firstIndex(where: { $0.name.lowercased() == name.lowercased() }) {
            release(commands[index].function)
            commands[index] = command
        } else {
            commands.append(command)
        }
        return .values(0)
    }
}

import EmberClient
import EmberCore
import EmberEngine
import EmberInstance
import EmberLua
import EmberQL
import EmberStorage
import EmberSync
import Foundation

/// The data commands: get, ls, tree, set, update, push, remove, increment, priority.
extension Shell {
    /// Starts a write with `start` and waits for the server's answer as ``acknowledgementWait``
    /// says, unless the write must wait in the queue (the client is offline, holds its writes
    /// for a new token, or, at the prompt, is not connected).
    /// - Parameter interrupted: what Ctrl-C during the wait says became of the write.
    /// - Throws: the refusal; `interrupted` (the write stays queued); `not_acknowledged` when a
    ///   script's wait ran out (the write stays queued, and the error says where).
    func performWrite(
        at position: SourcePosition?, on database: Database,
        interrupted: String = "stopped waiting; the write stays queued and will be sent",
        _ start: (@escaping (DatabaseError?) -> Void) throws(DatabaseError) -> Void
    ) throws(ShellError) -> WriteReport.Status {
        let answer = Pending<DatabaseError?>()
        do {
            try start(answer.filler)
        } catch {
            throw .database(error, at: position)
        }
        var waiting = answer.isFilled ? nil : waitingStatus(of: database)
        if waiting == nil, !answer.isFilled, state.acknowledgementWait == .interactive, !database.connectionState.isConnected {
            // At the prompt a write made while the connection is down does not hold the
            // prompt: it is queued, and the prompt shows the state.
            waiting = .queued(database.connectionState, keeping: queueKeeping(of: database))
        }
        if let waiting {
            // Queued means kept: the client's store must have it before the shell says so. A
            // store that cannot take it makes the client refuse the write (reverted, with
            // events), and that refusal is the answer.
            database.commitStore()
            if case .some(.some(let error)) = answer.value { throw .database(error, at: position) }
            if !database.isPersistent, case .directory = ember.persistence {
                throw .command(
                    ErrorCode.notStored,
                    "the write is applied locally and queued in memory only: client \(database.name) has no store"
                        + (database.lastStoreError.map { " (\($0.message))" } ?? "")
                        + "; it is lost if ember exits before it is sent", at: position)
            }
            return waiting
        }
        switch state.acknowledgementWait {
        case .interactive, .unbounded:
            try wait(for: answer, interrupted: interrupted)
        case .bounded(let milliseconds):
            try require(engine.wait(until: { answer.isFilled }, deadline: engine.now + milliseconds), interrupted: interrupted)
            if !answer.isFilled {
                throw .command(
                    ErrorCode.notAcknowledged,
                    "the write was not acknowledged within \(Self.duration(milliseconds)) (--ack-timeout): client \(database.name) is "
                        + "\(database.connectionState)\(serverDescription); \(queueDescription(of: database))", at: position)
            }
        }
        if case .some(.some(let error)) = answer.value { throw .database(error, at: position) }
        return .acknowledged
    }

    /// Why a write just made waits in the client's queue instead of being answered now: the
    /// client is offline (`queued`), or holds its writes until it has a new token (`held`);
    /// `nil` when it goes to the server.
    func waitingStatus(of database: Database) -> WriteReport.Status? {
        if database.connectionState == .offline { return .queued(.offline, keeping: queueKeeping(of: database)) }
        if database.writesHeld { return .held(reason: Self.heldReason(database.authState)) }
        return nil
    }

    /// Whether what `database` queues outlives this process when the server does.
    func queueKeeping(of database: Database) -> QueueKeeping {
        ember.remoteServer != nil && !database.isPersistent ? .inMemory : .kept
    }

    /// " to URL" for a server in another process, or nothing.
    var serverDescription: String {
        ember.remoteServer.map { " (server \($0.url))" } ?? ""
    }

    /// Where `database`'s queued writes are: "it stays queued in FILE and is sent when the
    /// client reconnects", or that it is in memory only ("they stay ..." for several).
    func queueDescription(of database: Database, several: Bool = false) -> String {
        let (subject, verb, be) = several ? ("they", "stay", "are") : ("it", "stays", "is")
        if database.isPersistent, case .file(let file)? = ember.clientStore(database.name)?.location {
            return "\(subject) \(verb) queued in \(file) and \(be) sent when the client reconnects (also on a later run)"
        }
        if ember.remoteServer != nil {
            return "\(subject) \(verb) queued in memory only, and \(be) lost if ember exits before \(subject) \(be) sent"
        }
        return "\(subject) \(verb) queued in memory"
    }

    /// A query for `path` with the modifiers of `query`.
    func makeQuery(_ path: Path, _ query: QueryExpression) -> Query {
        database.reference(path).query(query.params)
    }

    /// Reads `query` once (server when connected, cache when offline). Not connected with
    /// nothing cached, the client waits for the connection up to `connectTimeout` ms (its
    /// default, 3 s, when `nil`): the shell says so on stderr, and Ctrl-C stops the wait.
    func read(_ query: Query, connectTimeout: Int64? = nil) throws(ShellError) -> DataSnapshot {
        let answer = Pending<Result<DataSnapshot, DatabaseError>>()
        query.getData(connectTimeout: connectTimeout, answer.filler)
        // The client answers at once what it can (its cache, `.info`); a get still unanswered
        // while not connected waits for the connection (unless its limit is 0).
        let limit = min(max(connectTimeout ?? Query.defaultGetConnectTimeout, 0), Query.maximumGetConnectTimeout)
        if !answer.isFilled && !query.database.connectionState.isConnected && limit > 0 {
            reportWaitingForConnection(upTo: limit)
        }
        try wait(for: answer, interrupted: "stopped waiting for the value")
        switch answer.value! {
        case .success(let snapshot): return snapshot
        case .failure(let error): throw .database(error, at: nil)
        }
    }

    /// Says that a read waits for the connection, up to `milliseconds` (JSON:
    /// `{"waiting":"connection","timeout_ms":N}`).
    func reportWaitingForConnection(upTo milliseconds: Int64) {
        note(
            "waiting for the connection (up to \(Self.duration(milliseconds)); Ctrl-C stops)…",
            json: .object([("waiting", .string("connection")), ("timeout_ms", .int(milliseconds))]))
    }

    /// A wait in words: "3 s", "1.5 s", "100 ms".
    static func duration(_ milliseconds: Int64) -> String {
        if milliseconds < 1_000 { return "\(milliseconds) ms" }
        if milliseconds % 1_000 == 0 { return "\(milliseconds / 1_000) s" }
        return "\(Double(milliseconds) / 1_000) s"
    }

    func get(_ expression: PathExpression, _ query: QueryExpression) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        return .snapshot(try read(makeQuery(path, query), connectTimeout: query.connectTimeout))
    }

    func list(_ expression: PathExpression, _ query: QueryExpression) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let snapshot = try read(makeQuery(path, query), connectTimeout: query.connectTimeout)
        return .children(of: path, snapshot.children.map { (key: $0.key ?? "", value: $0.value) }, exists: snapshot.exists)
    }

    func tree(_ expression: PathExpression, depth: Int?) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        return .tree(try read(database.reference(path).query), depth: depth)
    }

    func set(_ expression: PathExpression, _ value: ValueExpression, priority: ValueExpression?) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let priority = try priority.map { (priority) throws(ShellError) in try Self.priority(priority) }
        let reference = database.reference(path)
        let status = try performWrite(at: value.position, on: database) { (done) throws(DatabaseError) in
            try reference.setValue(value.value, priority: priority ?? nil, completion: done)
        }
        return .write(WriteReport(status))
    }

    func update(_ expression: PathExpression, _ value: ValueExpression) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        guard case .object(let members) = value.value else {
            throw .command(ErrorCode.invalidValue, "update needs an object: {key: value, \"a/b\": value}", at: value.position)
        }
        let reference = database.reference(path)
        let status = try performWrite(at: value.position, on: database) { (done) throws(DatabaseError) in
            var changes: [(Path, Node)] = []
            for member in members {
                let relative = try Path(validatingWriteTarget: member.key)
                changes.append((relative, try Node(json: member.value, at: path.appending(relative))))
            }
            try reference.updateNodes(changes, completion: done)
        }
        return .write(WriteReport(status))
    }

    func push(_ expression: PathExpression, _ value: ValueExpression?) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let child = database.reference(path).childByAutoId()
        let key = child.key ?? ""
        guard let value else {
            // A push without a value writes nothing, like the SDKs' push(): only the key, and it
            // says so (issue 37: it printed a key as if it had written something).
            return .report(
                text: "\(key) (a new key under \(path); nothing written: set \(child.path) VALUE writes there)",
                json: .object([("key", .string(key)), ("written", .bool(false))]))
        }
        let status = try performWrite(at: value.position, on: database) { (done) throws(DatabaseError) in
            try child.setValue(value.value, completion: done)
        }
        return .write(WriteReport(status, detail: key, fields: [("key", .string(key))]))
    }

    func remove(_ expression: PathExpression, confirmed: Bool) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let reference = database.reference(path)
        if !confirmed, let confirm, let question = try removalQuestion(for: reference) {
            guard confirm(question) else { return .notRemoved }
        }
        let status = try performWrite(at: expression.position, on: database) { (done) throws(DatabaseError) in
            try reference.removeValue(completion: done)
        }
        return .write(WriteReport(status))
    }

    /// What `remove` asks at a terminal before removing a location with children, or `nil` when
    /// it has none. The client's cache answers when it knows the location; otherwise the server
    /// is asked for its first child (`limitToFirst 1`, not the whole subtree); offline with
    /// nothing cached, the shell cannot know, and asks.
    private func removalQuestion(for reference: Reference) throws(ShellError) -> String? {
        let path = reference.path
        if let known = database.cachedValue(at: path) {
            let count = known.childCount
            return count == 0 ? nil : "remove \(path) and its \(count) \(count == 1 ? "child" : "children")? [y/N] "
        }
        guard database.connectionState.isConnected else {
            return "remove \(path)? (offline: what it holds is not known here) [y/N] "
        }
        let firstChild: QueryParams
        do {
            firstChild = try QueryParams.default.limitedToFirst(1)
        } catch {
            throw .database(error, at: nil)
        }
        let first = try read(reference.query(firstChild))
        return first.childrenCount == 0 ? nil : "remove \(path) and everything under it? [y/N] "
    }

    func increment(_ expression: PathExpression, by amount: ValueExpression) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let delta: JSONValue
        switch amount.value {
        case .int, .double: delta = .object([(".sv", .object([("increment", amount.value)]))])
        default: throw .command(ErrorCode.invalidValue, "increment needs a number, found \(amount.value.serialized())", at: amount.position)
        }
        let reference = database.reference(path)
        let status = try performWrite(at: amount.position, on: database) { (done) throws(DatabaseError) in
            try reference.setValue(delta, completion: done)
        }
        return .write(WriteReport(status))
    }

    func setPriority(_ expression: PathExpression, _ priority: ValueExpression) throws(ShellError) -> CommandResult {
        let path = try resolve(expression)
        let priority = try Self.priority(priority)
        let reference = database.reference(path)
        // as the SDKs do: a write of path/.priority, which the server applies to what it has
        let status = try performWrite(at: expression.position, on: database) { (done) throws(DatabaseError) in
            try reference.setPriority(priority, completion: done)
        }
        return .write(WriteReport(status))
    }

    /// The priority a value stands for: a number, a string, a server value
    /// (`{".sv": "timestamp"}`), or `nil` (none) for `null`.
    static func priority(_ value: ValueExpression) throws(ShellError) -> Priority? {
        switch value.value {
        case .null: return nil
        case .int(let number): return .number(Double(number))
        case .double(let number): return .number(number)
        case .string(let text): return .string(text)
        case .object(let members) where members.count == 1 && members[0].key == ".sv":
            if case .deferred(let serverValue)? = (try? Node(json: value.value))?.leafValue { return .deferred(serverValue) }
            fallthrough
        default:
            throw .command(
                ErrorCode.invalidPriority, "a priority is a number, a string, a server value or null, not \(value.value.serialized())",
                at: value.position)
        }
    }
}

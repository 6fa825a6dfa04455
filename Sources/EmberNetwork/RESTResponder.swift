import EmberCore
import EmberInstance
import EmberNetworkShared
import EmberRules
import EmberServer
import EmberStorage
import EmberWire
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Firebase's REST API and its event streams over the served databases
/// (`../shared/reference/firebase-network.md` §1 and §2): `PATH.json` with GET, PUT, POST,
/// PATCH and DELETE (and `X-HTTP-Method-Override`), the query parameters, ETags, auth, the
/// rules at `/.settings/rules.json`, and `Accept: text/event-stream`.
///
/// Every request runs on a server connection of its own, on the namespace's engine thread,
/// exactly as a realtime client's request does: the same rules, validation, server values,
/// and a write's answer only once it is committed.
struct RESTResponder: HTTPResponder {
    typealias Context = ServeRequestContext

    let registry: DatabaseRegistry
    let limits: NetworkLimits
    /// Checks signed ID tokens (`--project`), if configured.
    let verifier: TokenVerifier?
    /// The administrator's credential (`owner`, or `--admin-token`'s secret).
    let admin: AdminCredential
    /// Which hosts and web pages may use the server (none on a local socket).
    let policy: OriginPolicy?
    let logger: Logger
    /// The open connections: an event stream is ended by a graceful stop.
    let connections: ConnectionCounter

    func respond(to request: Request, context: ServeRequestContext) async throws -> Response {
        var request = request
        let target = request.head.path ?? "/"
        let origin = request.headers[.origin]
        var response: Response
        if let policy, !policy.allows(host: request.head.authority)
            || !policy.allows(
                origin: origin, fetchSite: request.headers[.secFetchSite], fetchMode: request.headers[.secFetchMode],
                referer: request.headers[.referer])
        {
            // Before anything is read or written: a simple request (no preflight) from another
            // origin would otherwise be carried out, though its page could not read the answer.
            response = Self.failure(NetworkError(
                .forbidden, "This server takes requests for localhost, 127.0.0.1, [::1] and its --host, from pages on this machine or of an --allow-origin origin"))
            response.headers[.accessControlAllowOrigin] = nil
            response.headers[.accessControlExposeHeaders] = nil
            // A page's own address may hold secrets: only its origin is logged.
            let page = origin ?? request.headers[.referer].flatMap(OriginPolicy.origin(ofURL:)).map { "- (Referer \($0))" } ?? "-"
            logger.warning(
                "refused \(request.method.rawValue) \(Self.redacted(target)) from Host \(request.head.authority ?? "-"), Origin \(page), Sec-Fetch-Site \(request.headers[.secFetchSite] ?? "-")")
            return response
        }
        do {
            response = try await handle(&request, target: target, channel: context.channel)
        } catch {
            response = Self.failure(error)
        }
        if let origin {
            // A page of an allowed origin gets its own origin back, not `*`.
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
        logger.info("\(request.method.rawValue) \(Self.redacted(target)) \(response.status.code)")
        return response
    }

    /// `target` with the values of its credentials (`auth`, `access_token`) left out: tokens
    /// do not go in logs.
    static func redacted(_ target: String) -> String {
        guard let query = target.firstIndex(of: "?") else { return target }
        let parameters = target[target.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            let name = parameter.split(separator: "=", maxSplits: 1).first ?? ""
            return name == "auth" || name == "access_token" ? "\(name)=…" : String(parameter)
        }
        return target[..<query] + "?" + parameters.joined(separator: "&")
    }

    private func handle(_ request: inout Request, target: String, channel: any Channel) async throws(NetworkError) -> Response {
        if request.method == .options { return Self.preflight() }
        let query = QueryString(target: target)
        var method = request.method
        if method == .post, let override = request.headers[.methodOverride] ?? query["x-http-method-override"] {
            guard let overridden = HTTPRequest.Method(override.uppercased()), [.put, .patch, .delete, .get].contains(overridden) else {
                throw NetworkError(.badRequest, "X-HTTP-Method-Override must be PUT, PATCH or DELETE, not \(override)")
            }
            method = overridden
        }
        let rawPath = QueryString.path(of: target)
        if rawPath == "/" && (method == .get || method == .head) {
            // The data viewer (ViewerPage): what the emulator's UI and the console's data
            // viewer are to Firebase.
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            headers[.contentSecurityPolicy] = "default-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; frame-ancestors 'none'"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: ViewerPage.html)))
        }
        guard rawPath.hasSuffix(".json") else {
            throw NetworkError(.notFound, "Not found: Firebase's REST paths end in .json (\(rawPath).json)")
        }
        // Bytes that are not UTF-8 are refused, not stored as U+FFFD (`%FF` and `%FE` would be one
        // key); the request line's own bytes reached us with them replaced already.
        guard !rawPath.contains("\u{FFFD}"), let pathText = QueryString.decodeValidating(rawPath.dropLast(".json".count), plusIsSpace: false)
        else {
            throw NetworkError(.badRequest, "Invalid path: the path is not UTF-8")
        }
        let identity = try await RESTIdentity.of(
            query: query, authorization: request.headers[.authorization], verifier: verifier, admin: admin, now: SystemClock().now())
        if pathText == "/.inspect/databases" || pathText == "/.inspect/databases/" {
            // The emulator lists its namespaces to anyone (the Emulator UI sends no credential:
            // firebase-tools-ui `DatabaseContainer.fetchDatabases`); with rules in force, which
            // namespaces exist is the administrator's to know (deliberately stricter).
            if registry.rulesInForce, !identity.isAdministrator { throw NetworkError(DatabaseError.permissionDenied()) }
            let names = registry.names.map { JSONValue.object([("name", .string($0))]) }
            return Self.json(JSONValue.array(names).serialized())
        }
        if pathText == "/.ember/session" {
            // A shell session's clients and protocol messages, for its viewer (`view`).
            guard identity.isAdministrator else { throw NetworkError(DatabaseError.permissionDenied()) }
            let database = try registry.database(named: query["ns"], for: .read)
            let since = Int(query["since"] ?? "0") ?? 0
            // A shell's session, or for `ember serve` the rules' decisions alone.
            let report = await database.run { _ in database.sessionReport?(since) ?? database.rulesReport() }
            return Self.json(report)
        }
        let isRules = pathText == "/.settings/rules" || pathText == "/.settings/rules/"
        // Who may create a namespace that does not exist (NamespaceUse): a read never does.
        let use: NamespaceUse
        switch method {
        case .get:
            use = !isRules && request.headers[.accept]?.contains("text/event-stream") == true ? .connection : .read
        default:
            use = .write(byAdministrator: identity.isAdministrator)
        }
        let database = try registry.database(named: query["ns"], for: use)
        if isRules {
            return try await rules(&request, method: method, query: query, database: database, identity: identity)
        }
        let path: Path
        do {
            path = try Path(validatingWriteTarget: pathText)
        } catch {
            throw NetworkError(.badRequest, "Invalid path: Invalid token in path")
        }
        if path.front == .info { throw NetworkError(.badRequest, "Invalid path: Invalid token in path") }
        switch method {
        case .get:
            if request.headers[.accept]?.contains("text/event-stream") == true {
                return try stream(path, query: query, database: database, identity: identity, channel: channel)
            }
            return try await get(path, request: request, query: query, database: database, identity: identity)
        case .put, .post, .patch, .delete:
            return try await write(path, method: method, request: &request, query: query, database: database, identity: identity)
        default:
            throw NetworkError(.methodNotAllowed, "\(method.rawValue) is not a method of Firebase's REST API")
        }
    }

    // MARK: Reads

    /// The read time limit of `timeout=<n>ms|<n>s|<n>min`, in milliseconds (at most 15 minutes,
    /// as Firebase's REST reference says); `nil` without one.
    /// - Throws: 400 for a value that is not one.
    static func timeout(_ text: String?) throws(NetworkError) -> Int64? {
        guard let text else { return nil }
        let units: [(suffix: String, milliseconds: Int64)] = [("ms", 1), ("min", 60_000), ("s", 1000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let count = Int64(text.dropLast(suffix.count)), count > 0, count <= 15 * 60_000 / scale {
                return count * scale
            }
        }
        throw NetworkError(.badRequest, "timeout must be a positive number followed by ms, s or min, at most 15min (not '\(text)')")
    }

    /// Checks `writeSizeLimit=tiny|small|medium|large|unlimited`. Firebase aborts writes it
    /// estimates would take longer than 1 s, 10 s, 30 s or 60 s; every write Ember takes (its
    /// body at most `maxBodySize`) is applied well within 1 s, so a valid value refuses nothing.
    /// - Throws: 400 for a value that is not one of those.
    static func checkWriteSizeLimit(_ text: String?) throws(NetworkError) {
        guard let text, !["tiny", "small", "medium", "large", "unlimited"].contains(text) else { return }
        throw NetworkError(.badRequest, "writeSizeLimit must be tiny, small, medium, large or unlimited (not '\(text)')")
    }

    private func get(_ path: Path, request: Request, query: QueryString, database: ServedDatabase, identity: RESTIdentity)
        async throws(NetworkError) -> Response
    {
        // A limit of 0 reads nothing, but the rules still decide whether it may.
        let params = try Self.queryParams(query)
        let limit = try Self.timeout(query["timeout"])
        let read = QuerySpec(path: path, params: params ?? .default)
        let signIn = identity.signIn
        guard let answer = await Deadline.race(milliseconds: limit, { await database.get(read, signingIn: signIn) }) else {
            throw NetworkError(.badRequest, "The read took longer than the specified timeout (\(query["timeout"] ?? "")).")
        }
        let data = try Self.data(of: answer)
        var node = params == nil ? Node.empty : data
        let wantsETag = request.headers[.firebaseETag] == "true" || request.headers[.ifNoneMatch] != nil
        var headers = HTTPFields()
        if wantsETag {
            let etag = Self.etag(of: node)
            headers[.eTag] = etag
            if let expected = request.headers[.ifNoneMatch], expected == etag {
                return Response(status: .notModified, headers: headers.withCORS)
            }
        }
        if query["shallow"] == "true", !node.isLeaf {
            node = Node(children: node.children.map { ($0.key, Node(.bool(true))) })
        }
        if query["print"] == "silent" { return Response(status: .noContent, headers: headers.withCORS) }
        let format: JSONFormat = query["format"] == "export" ? .export : .normal
        var text = node.jsonString(format, pretty: query["print"] == "pretty")
        if let callback = query["callback"] {
            guard callback.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "$" }) else {
                throw NetworkError(.badRequest, "callback must be a JavaScript function name")
            }
            text = "\(callback)(\(text));"
            headers[.contentType] = "application/javascript; charset=utf-8"
        }
        if let download = query["download"] {
            let name = download.filter { $0 != "\"" && $0 != "\r" && $0 != "\n" }
            headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        }
        return Self.json(text, headers: headers)
    }

    // MARK: Writes

    private func write(
        _ path: Path, method: HTTPRequest.Method, request: inout Request, query: QueryString, database: ServedDatabase,
        identity: RESTIdentity
    ) async throws(NetworkError) -> Response {
        try Self.checkWriteSizeLimit(query["writeSizeLimit"])
        // A write the rules refuse whatever it holds is refused before its body is parsed (a
        // refused PATCH of a million paths cost as much as an accepted one); the body is read
        // and dropped, so that the client, still sending it, hears the answer.
        if method != .delete, let auth = identity.connectionAuth(at: SystemClock().now()),
            await database.run({ $0.server.refusesEveryWrite(atOrBelow: path, as: auth) })
        {
            _ = try? await request.body.reduce(0) { count, buffer in count + buffer.readableBytes }
            throw NetworkError(DatabaseError.permissionDenied(at: path))
        }
        let body: JSONValue?
        var text = ""
        if method == .delete {
            body = nil
        } else {
            text = try await Self.bodyText(&request, limit: limits.maxBodySize)
            body = try Self.parse(text)
        }
        let ifMatch = request.headers[.ifMatch]
        let expectedHash = ifMatch.map { $0 == "null_etag" ? "" : $0 }
        if ifMatch != nil || request.headers[.firebaseETag] == "true" {
            // The answer carries the location's ETag, and a 412 its value (firebase-admin-python's
            // `Reference.set_if_unchanged` takes the new ETag from the answer's headers and, on
            // 412, the value from its body): what a read gives. A client that may not read the
            // location is refused before anything is stored, not after.
            _ = try Self.data(of: await database.get(.default(at: path), signingIn: identity.signIn))
        }
        var pushed: String?
        /// What the request writes: a value at a path (with the hash it expects there), or a
        /// merge.
        enum Write { case put(Node, Path, hash: String?), merge([WireChange]) }
        let write: Write
        do throws(DatabaseError) {
            switch method {
            case .put:
                write = .put(try Node(json: body ?? .null, at: path), path, hash: expectedHash)
            case .delete:
                write = .put(.empty, path, hash: expectedHash)
            case .post:
                guard ifMatch == nil else { throw .other(code: ErrorCode.invalidArgument, message: "if-match is taken by PUT and DELETE only") }
                let name = database.nextPushID()
                pushed = name
                let target = path.child(ChildKey(unchecked: name))
                write = .put(try Node(json: body ?? .null, at: target), target, hash: nil)
            default:
                guard ifMatch == nil else { throw .other(code: ErrorCode.invalidArgument, message: "if-match is taken by PUT and DELETE only") }
                // Overlapping paths are refused by the server, as for every merge.
                write = .merge(try WireChange.changes(parsing: body, at: path))
            }
        } catch {
            if method != .patch, let key = error.invalidKey, let position = Self.position(ofKey: key, in: text) {
                // Firebase's words, with where the key begins (line:column, from 1).
                throw NetworkError(
                    .badRequest,
                    "Invalid data; couldn't parse key beginning at \(position.line):\(position.column). Key value can't be empty or contain $ # [ ] / or .")
            }
            throw NetworkError(error)
        }
        let status: AckStatus =
            switch write {
            case .put(let node, let target, let hash): await database.put(node, at: target, hash: hash, signingIn: identity.signIn)
            case .merge(let changes): await database.merge(changes, at: path, signingIn: identity.signIn)
            }
        var headers = HTTPFields()
        switch status {
        case .failed(let error) where error.code == ErrorCode.dataStale:
            // 412 with the value there now and its ETag (the Admin SDK reads both).
            let current = try Self.data(of: await database.get(.default(at: path), signingIn: identity.signIn))
            headers[.eTag] = Self.etag(of: current)
            return Response(
                status: .preconditionFailed, headers: headers.withCORS.with(.contentType, "application/json; charset=utf-8"),
                body: ResponseBody(byteBuffer: ByteBuffer(string: current.jsonString())))
        case .failed(let error):
            throw NetworkError(error)
        case .ok:
            break
        }
        if ifMatch != nil || request.headers[.firebaseETag] == "true" {
            let written = try Self.data(of: await database.get(.default(at: path), signingIn: identity.signIn))
            headers[.eTag] = Self.etag(of: written)
        }
        if query["print"] == "silent" { return Response(status: .noContent, headers: headers.withCORS) }
        let pretty = query["print"] == "pretty"
        switch method {
        case .post: return Self.json(JSONValue.object([("name", .string(pushed ?? ""))]).serialized(pretty: pretty), headers: headers)
        case .delete: return Self.json("null", headers: headers)
        default: return Self.json((body ?? .null).serialized(pretty: pretty), headers: headers)
        }
    }

    // MARK: Rules

    private func rules(_ request: inout Request, method: HTTPRequest.Method, query: QueryString, database: ServedDatabase, identity: RESTIdentity)
        async throws(NetworkError) -> Response
    {
        guard identity.isAdmin else { throw NetworkError(.unauthorized, "Permission denied") }
        switch method {
        case .get:
            let ruleset = await database.run { $0.server.rules }
            if query["format"] == "strict" { return Self.json(ruleset.strictJSON.serialized(pretty: true)) }
            return Self.json(ruleset.source ?? Ruleset.openSource)
        case .put:
            let bytes = try await Self.bodyText(&request, limit: limits.maxBodySize)
            let ruleset: Ruleset
            do {
                ruleset = try Ruleset(text: bytes)
            } catch {
                throw NetworkError(.badRequest, error.message)
            }
            let failure: String? = await database.run { (access) -> String? in
                do throws(StoreError) {
                    try access.ember.setRules(ruleset)
                    return nil
                } catch {
                    return error.message
                }
            }
            if let failure { throw NetworkError(.unavailable, failure) }
            return Self.json(#"{"status":"ok"}"#)
        default:
            throw NetworkError(.methodNotAllowed, "the rules are read with GET and replaced with PUT")
        }
    }

    // MARK: Event streams

    private func stream(
        _ path: Path, query: QueryString, database: ServedDatabase, identity: RESTIdentity, channel: any Channel
    ) throws(NetworkError) -> Response {
        guard let params = try Self.queryParams(query) else { throw NetworkError(.badRequest, "a stream's limit must be positive") }
        let format: JSONFormat = query["format"] == "export" ? .export : .normal
        let logger = logger
        // `shallow=true` (Ember's extension): only the children, objects as `{}` (EventStream).
        var shallow: (@Sendable (Path) -> Node)?
        if query["shallow"] == "true" {
            shallow = { @Sendable [database] path in database.valueOnEngineThread(at: path) }
        }
        let events = EventStream(location: path, format: format, limit: limits.maxUnsentBytes, shallow: shallow) {
            logger.warning("stream of \(path) closed: its client stopped reading (more than \(limits.maxUnsentBytes) bytes unsent)")
            channel.close(promise: nil)
        }
        guard let number = connections.open(close: { events.finish() }) else {
            throw NetworkError(.unavailable, "this server is stopping")
        }
        let handle = database.listen(QuerySpec(path: path, params: params), signingIn: identity.signIn) { event in
            events.take(event)
        }
        // On a namespace that does not exist yet, the stream ends when it is created: the
        // client's EventSource connects again and reads the namespace's data.
        let waiter = registry.endOnCreation(of: query["ns"], for: database) { events.finish() }
        let registry = registry
        // A client that goes away ends its stream (and its listen) at once.
        channel.eventLoop.execute {
            do {
                try channel.pipeline.syncOperations.addHandler(HangUpWatcher { events.finish() }, position: .first)
            } catch {
                events.finish()
            }
        }
        let connections = connections
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers.withCORS, body: ResponseBody { writer in
            defer {
                registry.forget(waiter)
                handle.close()
                events.finish()
                connections.close(number)
                logger.info("stream of \(path) closed")
            }
            logger.info("stream of \(path) opened")
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Keep-alives every 30 s, as Firebase sends them.
                    while true {
                        try await Task.sleep(for: .seconds(30))
                        events.keepAlive()
                    }
                }
                for await text in events.stream {
                    try await writer.write(ByteBuffer(string: text))
                    events.written(text)
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        })
    }

    // MARK: Parts

    /// The query of a GET or a stream: `orderBy`, `limitToFirst`/`limitToLast`,
    /// `startAt`/`startAfter`/`endAt`/`endBefore`/`equalTo`, each JSON-encoded, a bound
    /// optionally followed by `,"key"`. Without `orderBy`, other parameters order by key, as the
    /// emulator does (firebase-tools' export and the Emulator UI send `limitToFirst` alone).
    /// - Returns: `nil` for a limit of 0, which keeps nothing.
    static func queryParams(_ query: QueryString) throws(NetworkError) -> QueryParams? {
        let names = ["limitToFirst", "limitToLast", "startAt", "startAfter", "endAt", "endBefore", "equalTo"]
        guard query["orderBy"] != nil || names.contains(where: { query[$0] != nil }) else { return .default }
        var index = Index.key
        if let orderBy = query["orderBy"] {
            guard case .string(let name)? = try? JSONParser.parse(orderBy) else {
                throw NetworkError(.badRequest, "orderBy must be a valid JSON encoded path")
            }
            switch name {
            case "$key": index = .key
            case "$value": index = .value
            case "$priority": index = .priority
            default:
                guard let childPath = try? Path(validating: name), !childPath.isEmpty else {
                    throw NetworkError(.badRequest, "orderBy must be a valid JSON encoded path")
                }
                index = .child(childPath)
            }
        }
        func bound(_ name: String) throws(NetworkError) -> (LeafValue?, ChildKey?)? {
            guard let text = query[name] else { return nil }
            let value: JSONValue
            var key: ChildKey?
            if let parsed = try? JSONParser.parse(text) {
                value = parsed
            } else if case .array(let pair)? = try? JSONParser.parse("[\(text)]"), pair.count == 2, case .string(let name) = pair[1] {
                value = pair[0]
                guard let childKey = try? ChildKey(validating: name) else {
                    throw NetworkError(.badRequest, "\(name)'s key must be a valid key")
                }
                key = childKey
            } else {
                throw NetworkError(.badRequest, "\(name) must be a JSON value (a string in quotes)")
            }
            if index == .key, case .string = value {} else if index == .key {
                throw NetworkError(.badRequest, "Provided key index type is invalid, must be string")
            }
            switch value {
            case .null: return (nil, key)
            case .bool(let flag): return (.bool(flag), key)
            case .int(let number): return (.int(number), key)
            case .double(let number): return (LeafValue(normalizing: number), key)
            case .string(let text): return (.string(text), key)
            default: throw NetworkError(.badRequest, "\(name) must be null, a boolean, a number or a string")
            }
        }
        func limit(_ name: String) throws(NetworkError) -> Int? {
            guard let text = query[name] else { return nil }
            guard let count = Int(text), count >= 0, count <= Int(Int32.max) else {
                throw NetworkError(.badRequest, "\(name) must be a non-negative integer")
            }
            return count
        }
        let equal = try bound("equalTo"), startAt = try bound("startAt"), startAfter = try bound("startAfter")
        let endAt = try bound("endAt"), endBefore = try bound("endBefore")
        let first = try limit("limitToFirst"), last = try limit("limitToLast")
        // A limit of 0 keeps nothing.
        if first == 0 || last == 0 { return nil }
        do throws(DatabaseError) {
            var params = try QueryParams.default.orderedBy(index)
            if let (value, key) = equal { params = try params.equalTo(value, key: key) }
            if let (value, key) = startAt { params = try params.startingAt(value, key: key) }
            if let (value, key) = startAfter { params = try params.startingAfter(value, key: key) }
            if let (value, key) = endAt { params = try params.endingAt(value, key: key) }
            if let (value, key) = endBefore { params = try params.endingBefore(value, key: key) }
            if let first { params = try params.limitedToFirst(first) }
            if let last { params = try params.limitedToLast(last) }
            return params
        } catch {
            throw NetworkError(.badRequest, error.message)
        }
    }

    /// The data of a get's answer, or the error it carries.
    static func data(of answer: Result<Node, DatabaseError>) throws(NetworkError) -> Node {
        switch answer {
        case .success(let node): return node
        case .failure(let error): throw NetworkError(error)
        }
    }

    /// A location's ETag: the hash of its value (Firebase's transaction hash), `null_etag` when
    /// it holds nothing (§1.8).
    static func etag(of node: Node) -> String {
        node.isEmpty ? "null_etag" : node.hashString
    }

    /// `text` as JSON.
    /// - Throws: 400 with Firebase's words when it is not JSON.
    static func parse(_ text: String) throws(NetworkError) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw NetworkError(.badRequest, "Invalid data; couldn't parse JSON object, array, or value.")
        }
    }

    /// Where `key` is first written as an object's key in `text` (its opening quote), as a line
    /// and a column counted from 1 in characters; `nil` when it is not written plainly (an
    /// escape in it).
    /// - Complexity: O(n) in the length of the text.
    static func position(ofKey key: String, in text: String) -> (line: Int, column: Int)? {
        var quoted = ""
        JSONWriter.writeString(key, to: &quoted)
        var searchFrom = text.startIndex
        while let found = text[searchFrom...].firstRange(of: quoted) {
            // A key is followed by a colon (after any spaces); a string value is not.
            let after = text[found.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
            if after.first == ":" {
                let before = text[..<found.lowerBound]
                let line = before.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
                let lineStart = before.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
                return (line, text.distance(from: lineStart, to: found.lowerBound) + 1)
            }
            searchFrom = found.upperBound
        }
        return nil
    }

    static func bodyText(_ request: inout Request, limit: Int) async throws(NetworkError) -> String {
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch {
            throw NetworkError(.payloadTooLarge, "Data to write exceeds the maximum size that can be modified with a single request.")
        }
        // Not stored as U+FFFD: a body that is not UTF-8 is not JSON.
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            throw NetworkError(.badRequest, "Invalid data; couldn't parse JSON object, array, or value. (the body is not UTF-8)")
        }
        return text
    }

    /// `text` answered with 200, as JSON unless `headers` name another type (JSONP's JavaScript).
    static func json(_ text: String, headers: HTTPFields = HTTPFields()) -> Response {
        var headers = headers.withCORS
        if headers[.contentType] == nil { headers[.contentType] = "application/json; charset=utf-8" }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func failure(_ error: any Error) -> Response {
        let failure = (error as? NetworkError) ?? NetworkError(.badRequest, "\(error)")
        var headers = HTTPFields().withCORS
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: HTTPResponse.Status(code: failure.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: failure.body)))
    }

    static func preflight() -> Response {
        var headers = HTTPFields().withCORS
        headers[.accessControlAllowMethods] = "GET, PUT, POST, PATCH, DELETE, OPTIONS"
        headers[.accessControlAllowHeaders] = "Authorization, Content-Type, X-Firebase-ETag, If-Match, If-None-Match, X-HTTP-Method-Override"
        return Response(status: .noContent, headers: headers)
    }
}

extension HTTPField.Name {
    static let methodOverride = HTTPField.Name("X-HTTP-Method-Override")!
    static let firebaseETag = HTTPField.Name("X-Firebase-ETag")!
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let secFetchMode = HTTPField.Name("Sec-Fetch-Mode")!
}

extension HTTPFields {
    /// With the headers that let the Emulator UI and browsers call across origins.
    var withCORS: HTTPFields {
        var copy = self
        copy[.accessControlAllowOrigin] = "*"
        copy[.accessControlExposeHeaders] = "ETag"
        return copy
    }

    func with(_ name: HTTPField.Name, _ value: String) -> HTTPFields {
        var copy = self
        copy[name] = value
        return copy
    }
}

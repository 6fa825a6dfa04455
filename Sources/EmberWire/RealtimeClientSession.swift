import EmberCore

/// The client's side of one realtime protocol v5 connection, as a value: it turns the client's
/// ``ClientMessage``s into the protocol's text and the server's text back into
/// ``ServerMessage``s, remembering what each request was so that its answer can be read.
///
/// A state machine that returns actions: ``send(_:)`` says what to put on the socket (or what to
/// answer at once), ``receive(frame:)`` what the frames meant. It does no I/O, so a transport
/// over any socket drives it, and tests drive it alone.
///
/// What it keeps:
/// - the kind of every request not yet answered (an answer `{"r":N,"b":{"s":…,"d":…}}` is a
///   get's data or an acknowledgement, depending on the request);
/// - the listens sent, by location and query object, so that a revoked listen (`c`, which names
///   them that way) finds the ``QuerySpec`` and tag it was sent with;
/// - whether the server said it is Ember (`"ember":1` in its hello): only then do writes carry
///   their write keys and does the client's `resume` go out; any other server (the Firebase
///   emulator, Firebase itself) gets exactly what firebase-js-sdk sends
///   (`packages/database/src/core/PersistentConnection.ts`), and the resume is answered here.
public struct RealtimeClientSession: Sendable {
    /// What to do with a message the client sends.
    public enum Outgoing: Sendable, Equatable {
        /// Put this text on the socket (split with ``RealtimeCodec/frames(_:)``).
        case send(String)
        /// Nothing to send: hand this answer back to the client (a `resume` to a server that is
        /// not Ember, which would not know it).
        case answer(ServerMessage)
    }

    /// What a frame from the server meant.
    public enum Incoming: Sendable, Equatable {
        /// A message for the client.
        case message(ServerMessage)
        /// The server asks the client to connect to `host` instead (`r`): the connection ends.
        case redirect(host: String)
        /// The server is going away, or refuses the connection, for `reason` (`s`): the
        /// connection ends.
        case shutdown(reason: String)
        /// Something the client should hear about but that changes nothing: a control error
        /// (`e`), a push that could not be read, a security debug message (`sd`).
        case notice(String)
    }

    private enum Expectation: Sendable {
        case acknowledgement
        /// A listen's answer: a refusal ends the listen on the server.
        case listen(ListenKey)
        case data(Path)
    }

    private struct ListenKey: Hashable, Sendable {
        var path: Path
        /// The query object in canonical form (keys sorted); "" for a listen sent without one.
        var query: String
    }

    private var expectations: [Int: Expectation] = [:]
    private var listens: [ListenKey: (query: QuerySpec, tag: Int?)] = [:]
    private var assembler: FrameAssembler
    /// Whether the server's hello said it is Ember.
    public private(set) var speaksEmber = false
    /// Whether the server's hello arrived.
    public private(set) var isOpen = false
    /// The host the server's hello named (where the client should connect next time).
    public private(set) var host: String?

    /// A session for a new connection; messages longer than `maxMessageSize` UTF-8 bytes from
    /// the server are refused.
    public init(maxMessageSize: Int = 256 << 20) {
        assembler = FrameAssembler(maxMessageSize: maxMessageSize)
    }

    /// How many requests wait for their answer.
    public var unanswered: Int { expectations.count }

    // MARK: Client → server

    /// What to do with `message`.
    /// - Complexity: O(n) in the size of the data it carries.
    public mutating func send(_ message: ClientMessage) -> Outgoing {
        switch message {
        case .listen(let id, let query, let tag, _):
            let key = Self.listenKey(query, tag: tag)
            listens[key] = (query, tag)
            expectations[id] = .listen(key)
        case .unlisten(_, let query, let tag):
            listens[Self.listenKey(query, tag: tag)] = nil
        case .get(let id, let query):
            expectations[id] = .data(query.path)
        case .resume(let id, _, _) where !speaksEmber:
            return .answer(.ack(requestID: id, status: .ok()))
        default:
            break
        }
        if expectations[message.requestID] == nil { expectations[message.requestID] = .acknowledgement }
        return .send(Self.text(of: message, speaksEmber: speaksEmber))
    }

    /// `message` as the protocol's text, as firebase-js-sdk's `PersistentConnection` sends it
    /// (with Ember's write keys and `ember.resume` when `speaksEmber`): what a WebSocket
    /// carries, and what `trace` shows of an embedded client's messages.
    /// - Complexity: O(n) in the size of the data it carries.
    public static func text(of message: ClientMessage, speaksEmber: Bool) -> String {
        var body = JSONWriter()
        let action: String
        switch message {
        case .listen(_, let query, let tag, let hash):
            action = "q"
            writeListen(query, tag: tag, to: &body)
            body.append(raw: #","h":"#)
            body.write(string: hash)
            body.append(raw: "}")
        case .unlisten(_, let query, let tag):
            action = "n"
            writeListen(query, tag: tag, to: &body)
            body.append(raw: "}")
        case .put(_, let path, let data, let hash, let writeKey):
            action = "p"
            writeData(path: path, data: data, hash: hash, writeKey: speaksEmber ? writeKey : nil, to: &body)
        case .merge(_, let path, let changes, let writeKey):
            action = "m"
            writeChanges(path: path, changes: changes, writeKey: speaksEmber ? writeKey : nil, to: &body)
        case .onDisconnectPut(_, let path, let data):
            action = "o"
            writeData(path: path, data: data, hash: nil, writeKey: nil, to: &body)
        case .onDisconnectMerge(_, let path, let changes):
            action = "om"
            writeChanges(path: path, changes: changes, writeKey: nil, to: &body)
        case .onDisconnectCancel(_, let path):
            action = "oc"
            body.append(raw: #"{"p":"#)
            body.write(string: path.description)
            body.append(raw: "}")
        case .get(_, let query):
            action = "g"
            body.append(raw: #"{"p":"#)
            body.write(string: query.path.description)
            body.append(raw: #","q":"#)
            body.write(query.params.wireObject)
            body.append(raw: "}")
        case .auth(_, let token):
            action = "auth"
            body.append(raw: #"{"cred":"#)
            body.write(string: token)
            body.append(raw: "}")
        case .adminAuth(_, let credential, let override):
            action = "gauth"
            body.append(raw: #"{"cred":"#)
            body.write(string: credential)
            switch override {
            case .none: break
            case .unauthenticated: body.append(raw: #","noauth":true"#)
            case .variable(let variable):
                body.append(raw: #","authvar":"#)
                body.write(variable)
            }
            body.append(raw: "}")
        case .unauth:
            action = "unauth"
            body.append(raw: "{}")
        case .resume(_, let client, let writers):
            action = "ember.resume"
            body.append(raw: #"{"c":"#)
            body.write(string: client)
            body.append(raw: #","w":{"#)
            for (index, writer) in writers.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { body.append(raw: ",") }
                body.write(string: writer.key)
                body.append(raw: ":")
                body.append(raw: String(writer.value))
            }
            body.append(raw: "}}")
        }
        var writer = JSONWriter()
        writer.append(raw: #"{"t":"d","d":{"r":"#)
        writer.append(raw: String(message.requestID))
        writer.append(raw: #","a":"#)
        writer.write(string: action)
        writer.append(raw: #","b":"#)
        writer.append(raw: body.output)
        writer.append(raw: "}}")
        return writer.output
    }

    /// The key a listen is known by: its location and, for a tagged (filtered) query, its
    /// query object in canonical form.
    private static func listenKey(_ query: QuerySpec, tag: Int?) -> ListenKey {
        ListenKey(path: query.path, query: tag == nil ? "" : canonical(query.params.wireObject))
    }

    /// Writes the start of a listen's or an unlisten's body: the location and, for a tagged
    /// (filtered) query, its query object and tag, as firebase-js-sdk's `sendListen_` and
    /// `sendUnlisten_` do. The body is left open.
    private static func writeListen(_ query: QuerySpec, tag: Int?, to body: inout JSONWriter) {
        body.append(raw: #"{"p":"#)
        body.write(string: query.path.description)
        if let tag {
            body.append(raw: #","q":"#)
            body.write(query.params.wireObject)
            body.append(raw: #","t":"#)
            body.append(raw: String(tag))
        }
    }

    private static func writeData(path: Path, data: Node, hash: String?, writeKey: SentWriteKey?, to body: inout JSONWriter) {
        body.append(raw: #"{"p":"#)
        body.write(string: path.description)
        body.append(raw: #","d":"#)
        body.write(data, format: .export)
        if let hash {
            body.append(raw: #","h":"#)
            body.write(string: hash)
        }
        if let writeKey {
            body.append(raw: #","k":"#)
            body.write(string: writeKey.description)
        }
        body.append(raw: "}")
    }

    private static func writeChanges(path: Path, changes: [WireChange], writeKey: SentWriteKey?, to body: inout JSONWriter) {
        body.append(raw: #"{"p":"#)
        body.write(string: path.description)
        body.append(raw: #","d":"#)
        // The changes' paths are relative to the merge's location, as on the wire.
        RealtimeCodec.writeChanges(changes, format: .export, to: &body)
        if let writeKey {
            body.append(raw: #","k":"#)
            body.write(string: writeKey.description)
        }
        body.append(raw: "}")
    }

    // MARK: Server → client

    /// What one WebSocket frame from the server meant (nothing while a split message is still
    /// arriving).
    /// - Complexity: O(n) in the frame's length, plus building the values it carries.
    public mutating func receive(frame: String) -> [Incoming] {
        switch assembler.take(frame) {
        case .incomplete: return []
        case .tooLarge: return [.shutdown(reason: "the server sent a message larger than \(assembler.maxMessageSize) bytes")]
        case .message(let text): return receive(message: text)
        }
    }

    private mutating func receive(message text: String) -> [Incoming] {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            return [.notice("the server sent something that is not JSON: \(error.message)")]
        }
        switch json["t"] {
        case .string("c")?:
            return control(json["d"] ?? .null)
        case .string("d")?:
            return data(json["d"] ?? .null)
        default:
            return [.notice("the server sent a message of no known type: \(Self.excerpt(text))")]
        }
    }

    private mutating func control(_ message: JSONValue) -> [Incoming] {
        let payload = message["d"]
        switch message["t"] {
        case .string("h")?:
            // The hello (Connection.onHandshake_): the server's time, version, host, session.
            isOpen = true
            if case .string(let named)? = payload?["h"] { host = named }
            if case .int(let flag)? = payload?["ember"], flag >= 1 { speaksEmber = true }
            let serverTime: Int64
            switch payload?["ts"] {
            case .int(let time)?: serverTime = time
            case .double(let time)?: serverTime = Int64(time)
            default: return [.shutdown(reason: "the server's hello carries no time")]
            }
            return [.message(.handshake(serverTime: serverTime))]
        case .string("r")?:
            if case .string(let host)? = payload, !host.isEmpty { return [.redirect(host: host)] }
            return [.notice("the server asked to reconnect elsewhere without naming a host")]
        case .string("s")?:
            if case .string(let reason)? = payload { return [.shutdown(reason: reason)] }
            return [.shutdown(reason: "the server is going away")]
        case .string("e")?:
            if case .string(let reason)? = payload { return [.notice("the server reports an error: \(reason)")] }
            return [.notice("the server reports an error")]
        default:
            // A pong ("o"), a reset ("n"), anything newer: nothing to do.
            return []
        }
    }

    private mutating func data(_ message: JSONValue) -> [Incoming] {
        if case .int(let number)? = message["r"] {
            return answer(Int(clamping: number), message["b"] ?? .null)
        }
        guard case .string(let action)? = message["a"] else {
            return [.notice("the server sent data with neither a request number nor an action")]
        }
        let body = message["b"] ?? .null
        do throws(DatabaseError) {
            switch action {
            case "d", "m":
                guard case .string(let pathText)? = body["p"] else { throw Self.malformed("a \(action) push names no path") }
                let path = try Path(validating: pathText)
                let tag: Int?
                if case .int(let number)? = body["t"] { tag = Int(clamping: number) } else { tag = nil }
                if action == "d" {
                    return [.message(.dataUpdate(path: path, data: try Node(json: body["d"] ?? .null, at: path), tag: tag))]
                }
                return [.message(.mergeUpdate(path: path, changes: try WireChange.changes(parsing: body["d"], at: path), tag: tag))]
            case "c":
                guard case .string(let pathText)? = body["p"] else { throw Self.malformed("a revoked listen names no path") }
                let path = try Path(validating: pathText)
                var key = ListenKey(path: path, query: "")
                if case .array(let objects)? = body["q"], let object = objects.first { key.query = Self.canonical(object) }
                guard let listen = listens.removeValue(forKey: key) else { return [] }
                return [.message(.listenRevoked(query: listen.query, tag: listen.tag, error: .permissionDenied(at: path)))]
            case "ac":
                let code: String
                if case .string(let text)? = body["s"] { code = text } else { code = ErrorCode.expiredToken }
                let reason: String
                if case .string(let text)? = body["d"] { reason = text } else { reason = "the server revoked the token" }
                return [.message(.authRevoked(error: .other(code: code, message: reason)))]
            case "sd":
                if case .string(let text)? = body["msg"] { return [.notice(text)] }
                return []
            default:
                // App Check revoked ("apc") and anything newer.
                return []
            }
        } catch {
            return [.notice("the server sent a \(action) push that cannot be read: \(error.message)")]
        }
    }

    private mutating func answer(_ requestID: Int, _ body: JSONValue) -> [Incoming] {
        guard let expectation = expectations.removeValue(forKey: requestID) else { return [] }
        let status: String
        if case .string(let text)? = body["s"] { status = text } else { status = "" }
        let payload = body["d"]
        guard status == "ok" else {
            let error = Self.error(code: status.isEmpty ? ErrorCode.internalError : status, payload)
            switch expectation {
            case .acknowledgement:
                return [.message(.ack(requestID: requestID, status: .failed(error)))]
            case .listen(let key):
                listens[key] = nil
                return [.message(.ack(requestID: requestID, status: .failed(error)))]
            case .data:
                return [.message(.getResult(requestID: requestID, result: .failed(error)))]
            }
        }
        switch expectation {
        case .acknowledgement, .listen:
            return [.message(.ack(requestID: requestID, status: .ok(Self.okPayload(payload))))]
        case .data(let path):
            do throws(DatabaseError) {
                return [.message(.getResult(requestID: requestID, result: .data(try Node(json: payload ?? .null, at: path))))]
            } catch {
                return [.message(.getResult(requestID: requestID, result: .failed(error)))]
            }
        }
    }

    /// What an `ok` answer's `d` carries (``AckPayload``): `{}` for a listen, the user and
    /// expiry for a sign-in, nothing otherwise.
    private static func okPayload(_ payload: JSONValue?) -> AckPayload {
        guard case .object(let members)? = payload else { return .none }
        if members.isEmpty { return .listening }
        guard let auth = payload?["auth"] else { return .none }
        var expires: Int64?
        if case .int(let seconds)? = payload?["expires"] { expires = seconds }
        return .signedIn(auth: auth == .null ? nil : auth, expires: expires)
    }

    /// The error an answer names: Firebase's codes map to Ember's errors of the same code.
    private static func error(code: String, _ payload: JSONValue?) -> DatabaseError {
        let message: String
        if case .string(let text)? = payload { message = text } else { message = code }
        switch code {
        case ErrorCode.permissionDenied: return .permissionDenied()
        case ErrorCode.dataStale: return .dataStale()
        default: return .other(code: code, message: message)
        }
    }

    private static func malformed(_ message: String) -> DatabaseError {
        .other(code: ErrorCode.malformedJSON, message: message)
    }

    /// `json` with every object's members sorted by key, as text: how Firebase's clients match
    /// query objects (firebase-js-sdk `util.ts`, `ObjectToUniqueKey`).
    static func canonical(_ json: JSONValue) -> String {
        func sorted(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members): .object(members.sorted { $0.key < $1.key }.map { ($0.key, sorted($0.value)) })
            case .array(let items): .array(items.map(sorted))
            default: value
            }
        }
        return sorted(json).serialized()
    }

    private static func excerpt(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(80)) + "…"
    }
}

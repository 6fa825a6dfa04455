import EmberCore

/// The Firebase realtime protocol, version 5, as JSON text: what Firebase's SDKs send over a
/// WebSocket and what they expect back (`../shared/reference/firebase-network.md` §5).
///
/// Data messages are `{"t":"d","d":{"r":N,"a":ACTION,"b":BODY}}` (requests),
/// `{"t":"d","d":{"r":N,"b":{"s":STATUS,"d":PAYLOAD}}}` (answers) and
/// `{"t":"d","d":{"a":ACTION,"b":BODY}}` (pushes); control messages are
/// `{"t":"c","d":{"t":TYPE,"d":PAYLOAD}}`. Values travel in export form (priorities as
/// `.priority`, server values as `.sv`). Actions and shapes follow firebase-js-sdk
/// `packages/database/src/core/PersistentConnection.ts` and `realtime/Connection.ts`.
///
/// Two extensions serve Ember's own clients and are ignored by every other: a put or merge may
/// carry its write key (`k`), and `ember.resume` carries a client's writers (see
/// ``ClientMessage/resume(requestID:client:writers:)``).
public enum RealtimeCodec {
    /// The protocol version spoken (`v` in the URL and the hello).
    public static let version = "5"
    /// The longest message sent in one WebSocket frame; longer ones are split
    /// (firebase-js-sdk `realtime/WebSocketConnection.ts`, `WEBSOCKET_MAX_FRAME_SIZE`).
    public static let maxFrameSize = 16_384

    // MARK: Control messages

    /// The first message of a connection: the server's time (ms), the protocol version, the
    /// host the client should use and the session's id.
    /// - Parameter ember: whether to say that this server is Ember (its clients then send
    ///   write keys); Firebase's clients ignore the extra member.
    public static func hello(serverTime: Int64, host: String, session: String, ember: Bool = true) -> String {
        var writer = JSONWriter()
        writer.append(raw: #"{"t":"c","d":{"t":"h","d":{"ts":"#)
        writer.append(raw: String(serverTime))
        writer.append(raw: #","v":"5","h":"#)
        writer.write(string: host)
        writer.append(raw: #","s":"#)
        writer.write(string: session)
        if ember { writer.append(raw: #","ember":1"#) }
        writer.append(raw: "}}}")
        return writer.output
    }

    /// The answer to a control ping.
    public static let pong = #"{"t":"c","d":{"t":"o","d":{}}}"#

    /// A control message telling the client why the server is going away (`s`: it stops
    /// reconnecting, as Firebase's `server_kill`).
    public static func shutdown(reason: String) -> String {
        var writer = JSONWriter()
        writer.append(raw: #"{"t":"c","d":{"t":"s","d":"#)
        writer.write(string: reason)
        writer.append(raw: "}}")
        return writer.output
    }

    /// A control error message (`e`), logged by clients; the server closes after it.
    public static func error(_ text: String) -> String {
        var writer = JSONWriter()
        writer.append(raw: #"{"t":"c","d":{"t":"e","d":"#)
        writer.write(string: text)
        writer.append(raw: "}}")
        return writer.output
    }

    /// `text` as the frames to send: itself when short enough, else a frame holding the number
    /// of segments followed by the segments (firebase-js-sdk `WebSocketConnection.send`).
    public static func frames(_ text: String) -> [String] {
        let utf16 = text.utf16
        guard utf16.count > maxFrameSize else { return [text] }
        // Split on UTF-16 lengths as the JS client counts them, never inside a surrogate pair.
        var segments: [String] = []
        var start = utf16.startIndex
        while start != utf16.endIndex {
            var end = utf16.index(start, offsetBy: maxFrameSize, limitedBy: utf16.endIndex) ?? utf16.endIndex
            if end != utf16.endIndex, UTF16.isTrailSurrogate(utf16[end]) { end = utf16.index(before: end) }
            segments.append(String(text[start..<end]))
            start = end
        }
        return [String(segments.count)] + segments
    }

    // MARK: Client → server

    /// Decodes one (reassembled) message from a client.
    /// - Complexity: O(n) in the length of the text, plus building the values it carries.
    public static func decodeClientFrame(_ text: String) -> ClientFrame {
        if text == "0" || text.isEmpty { return .ignored }
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            if let refusal = refusingUnpairedSurrogates(text, error) { return refusal }
            return .refused(requestID: nil, error: .other(code: ErrorCode.malformedJSON, message: "a frame is not JSON: \(error.message)"))
        }
        switch json["t"] {
        case .string("c")?:
            if case .string("p")? = json["d"]?["t"] { return .ping }
            return .ignored
        case .string("d")?:
            break
        default:
            return .refused(requestID: nil, error: .other(code: ErrorCode.malformedJSON, message: "a frame must be {\"t\":\"d\"|\"c\",\"d\":…}"))
        }
        guard let data = json["d"], case .object = data else {
            return .refused(requestID: nil, error: .other(code: ErrorCode.malformedJSON, message: "a data frame carries no object"))
        }
        guard case .int(let number)? = data["r"], number >= 0, number <= Int64(Int32.max) else {
            return .refused(requestID: nil, error: .other(code: ErrorCode.malformedJSON, message: "a request carries no request number \"r\""))
        }
        let requestID = Int(number)
        guard case .string(let action)? = data["a"] else {
            return .refused(requestID: requestID, error: .other(code: ErrorCode.malformedJSON, message: "request \(requestID) names no action \"a\""))
        }
        let body = data["b"] ?? .object([])
        do throws(DatabaseError) {
            return try decodeRequest(requestID, action, body)
        } catch {
            return .refused(requestID: requestID, error: error)
        }
    }

    /// What a client message asks to write, read without its data: the request's number and
    /// its path, when the message is a write (`p`, `m`, `o`, `om`) with a valid path; else `nil`
    /// (``decodeClientFrame(_:)`` tells what is wrong). A server reads this much of a large
    /// message first, so that a write its rules refuse whatever it holds costs no more than
    /// this (a refused merge of a million paths grew a server by hundreds of MB).
    /// - Complexity: O(n) in the length of the text, building nothing of the data.
    /// - Returns: also, for a merge, where its first ``JSONParser/keptNames`` changes write
    ///   (the merge is refused if the rules refuse every write at one of them).
    public static func peekWrite(_ text: String) -> (requestID: Int, path: Path, merged: [Path])? {
        guard let json = try? JSONParser.parse(text, skipping: ["d", "b", "d"]), case .string("d")? = json["t"],
            let data = json["d"], case .int(let number)? = data["r"], number >= 0, number <= Int64(Int32.max),
            case .string(let action)? = data["a"], ["p", "m", "o", "om"].contains(action), let body = data["b"],
            let target = try? path(body, write: true)
        else { return nil }
        var merged: [Path] = []
        if action == "m" || action == "om", case .object(let members)? = body["d"] {
            for member in members {
                // A key that is not a path: the whole read says so.
                guard let relative = try? Path(validating: member.key) else { return nil }
                merged.append(target.appending(relative))
            }
        }
        return (Int(number), target, merged)
    }

    /// The refusal of a request whose only fault is an unpaired surrogate escape (`\uD83D`
    /// alone), read with such escapes replaced: a JavaScript string may hold one (the Web SDK's
    /// `endBefore` of a key ending in an emoji sends its `predecessor`, which cuts the emoji in
    /// two), and no key or value can. The request is answered with an error (a listen is
    /// cancelled, a write reverted) and the connection kept: closing it had the SDK connect again
    /// and send the same listen, forever, with every other request of the app waiting.
    /// - Complexity: O(n) in the length of the text.
    private static func refusingUnpairedSurrogates(_ text: String, _ error: DatabaseError) -> ClientFrame? {
        guard let json = try? JSONParser.parse(text, unpairedSurrogates: .replaced), case .int(let number)? = json["d"]?["r"],
            number >= 0, number <= Int64(Int32.max)
        else { return nil }
        let reason = "a string holds an unpaired UTF-16 surrogate, which no key or value can hold (\(error.message))"
        let refusal: DatabaseError
        switch json["d"]?["a"] {
        case .string("q")?, .string("l")?, .string("n")?, .string("g")?: refusal = .invalidQuery(reason)
        default: refusal = .invalidValue(reason)
        }
        return .refused(requestID: Int(number), error: refusal)
    }

    private static func decodeRequest(_ id: Int, _ action: String, _ body: JSONValue) throws(DatabaseError) -> ClientFrame {
        switch action {
        case "q", "l":
            let query = QuerySpec(path: try path(body, write: false), params: try QueryParams(wireObject: body["q"] ?? .null))
            return .request(.listen(requestID: id, query: query, tag: try tag(body), hash: try string(body, "h") ?? ""))
        case "n", "u":
            let query = QuerySpec(path: try path(body, write: false), params: try QueryParams(wireObject: body["q"] ?? .null))
            return .request(.unlisten(requestID: id, query: query, tag: try tag(body)))
        case "p":
            let target = try path(body, write: true)
            return .request(.put(requestID: id, path: target, data: try node(body["d"], at: target), hash: try string(body, "h"), writeKey: try string(body, "k").map(SentWriteKey.init(text:))))
        case "m":
            let target = try path(body, write: true)
            return .request(.merge(requestID: id, path: target, changes: try WireChange.changes(parsing: body["d"], at: target), writeKey: try string(body, "k").map(SentWriteKey.init(text:))))
        case "o":
            let target = try path(body, write: true)
            return .request(.onDisconnectPut(requestID: id, path: target, data: try node(body["d"], at: target)))
        case "om":
            let target = try path(body, write: true)
            return .request(.onDisconnectMerge(requestID: id, path: target, changes: try WireChange.changes(parsing: body["d"], at: target)))
        case "oc":
            return .request(.onDisconnectCancel(requestID: id, path: try path(body, write: true)))
        case "g":
            let query = QuerySpec(path: try path(body, write: false), params: try QueryParams(wireObject: body["q"] ?? .null))
            return .request(.get(requestID: id, query: query))
        case "auth":
            guard let credential = try string(body, "cred") else { throw invalid("auth needs a credential \"cred\"") }
            return .request(.auth(requestID: id, token: credential))
        case "gauth":
            guard let credential = try string(body, "cred") else { throw invalid("gauth needs a credential \"cred\"") }
            let override: AuthOverride
            if case .bool(true)? = body["noauth"] {
                override = .unauthenticated
            } else if let variable = body["authvar"], variable != .null {
                guard case .object = variable else { throw invalid("gauth's \"authvar\" must be an object") }
                override = .variable(variable)
            } else {
                override = .none
            }
            return .request(.adminAuth(requestID: id, credential: credential, override: override))
        case "unauth":
            return .request(.unauth(requestID: id))
        case "s", "appcheck", "unappeck":
            return .acknowledgeOnly(requestID: id)
        case "ember.resume":
            guard let client = try string(body, "c") else { throw invalid("ember.resume needs a client \"c\"") }
            var writers: [String: Int64] = [:]
            if case .object(let members)? = body["w"] {
                for member in members {
                    guard case .int(let floor) = member.value else { throw invalid("ember.resume's floors must be integers") }
                    writers[member.key] = floor
                }
            }
            return .request(.resume(requestID: id, client: client, writers: writers))
        default:
            throw invalid("unknown action \"\(action)\"")
        }
    }

    private static func invalid(_ message: String) -> DatabaseError {
        .other(code: ErrorCode.invalidArgument, message: message)
    }

    private static func string(_ body: JSONValue, _ key: String) throws(DatabaseError) -> String? {
        switch body[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case let other?: throw invalid("\"\(key)\" must be a string, not \(other.serialized())")
        }
    }

    private static func tag(_ body: JSONValue) throws(DatabaseError) -> Int? {
        switch body["t"] {
        case nil, .null?: return nil
        case .int(let number)? where number >= 0 && number <= Int64(Int32.max): return Int(number)
        case let other?: throw invalid("a listen's tag \"t\" must be a positive integer, not \(other.serialized())")
        }
    }

    private static func path(_ body: JSONValue, write: Bool) throws(DatabaseError) -> Path {
        guard let text = try string(body, "p") else { throw invalid("the request names no path \"p\"") }
        // iOS escapes slashes in JSON; the parser has already turned "\/" back into "/".
        let path = write ? try Path(validatingWriteTarget: text) : try Path(validating: text)
        // `.info` is each client's own: nothing is there on a server (a read finds null, as the
        // Web SDK's get() of `.info/serverTimeOffset` asks the server), nothing may be written.
        if write, path.front == .info { throw invalid("\(path) is local to each client (.info cannot be written on a server)") }
        return path
    }

    private static func node(_ json: JSONValue?, at path: Path) throws(DatabaseError) -> Node {
        try Node(json: json ?? .null, at: path)
    }

    // MARK: Server → client

    /// `message` as the text of one protocol message.
    /// - Parameters:
    ///   - revokedQuery: for a revoked filtered listen, the query object its client sent (the
    ///     client finds the listen by it; ``QueryParams/wireObject`` when not given).
    /// - Complexity: O(n) in the size of the data carried.
    public static func encode(_ message: ServerMessage, revokedQuery: JSONValue? = nil) -> String {
        // Room for the usual frame (an answer, a small update) from the start.
        var writer = JSONWriter(capacity: 128)
        switch message {
        case .handshake(let serverTime):
            return hello(serverTime: serverTime, host: "localhost", session: "0")
        case .ack(let requestID, let status):
            writer.append(raw: #"{"t":"d","d":{"r":"#)
            writer.append(raw: String(requestID))
            writer.append(raw: #","b":"#)
            switch status {
            case .ok(let payload):
                writer.append(raw: #"{"s":"ok","d":"#)
                switch payload {
                case .listening: writer.append(raw: "{}")
                case .none: writer.append(raw: #""""#)
                case .signedIn(let auth, let expires):
                    writer.append(raw: #"{"auth":"#)
                    writer.write(auth ?? .null)
                    writer.append(raw: #","expires":"#)
                    writer.append(raw: expires.map { String($0) } ?? "null")
                    writer.append(raw: "}")
                }
                writer.append(raw: "}")
            case .failed(let error):
                writeFailure(error, to: &writer)
            }
            writer.append(raw: "}}")
        case .getResult(let requestID, let result):
            writer.append(raw: #"{"t":"d","d":{"r":"#)
            writer.append(raw: String(requestID))
            writer.append(raw: #","b":"#)
            switch result {
            case .data(let node):
                writer.append(raw: #"{"s":"ok","d":"#)
                writer.write(node, format: .export)
                writer.append(raw: "}")
            case .failed(let error):
                writeFailure(error, to: &writer)
            }
            writer.append(raw: "}}")
        case .dataUpdate(let path, let data, let tag):
            writer.append(raw: #"{"t":"d","d":{"a":"d","b":{"p":"#)
            writer.write(string: wirePath(path))
            writer.append(raw: #","d":"#)
            writer.write(data, format: .export)
            if let tag { writer.append(raw: #","t":"#); writer.append(raw: String(tag)) }
            writer.append(raw: "}}}")
        case .mergeUpdate(let path, let changes, let tag):
            writer.append(raw: #"{"t":"d","d":{"a":"m","b":{"p":"#)
            writer.write(string: wirePath(path))
            writer.append(raw: #","d":"#)
            writeChanges(changes, format: .export, to: &writer)
            if let tag { writer.append(raw: #","t":"#); writer.append(raw: String(tag)) }
            writer.append(raw: "}}}")
        case .listenRevoked(let query, let tag, _):
            writer.append(raw: #"{"t":"d","d":{"a":"c","b":{"p":"#)
            writer.write(string: wirePath(query.path))
            // The client finds a default listen without "q" (its id is "default"), a filtered
            // one by its query object (PersistentConnection.onListenRevoked_).
            if tag != nil || !query.params.isDefault {
                writer.append(raw: #","q":["#)
                writer.write(revokedQuery ?? query.params.wireObject)
                writer.append(raw: "]")
            }
            writer.append(raw: "}}}")
        case .authRevoked(let error):
            writer.append(raw: #"{"t":"d","d":{"a":"ac","b":{"s":"#)
            writer.write(string: error.code)
            writer.append(raw: #","d":"#)
            writer.write(string: error.message)
            writer.append(raw: "}}}")
        }
        return writer.output
    }

    /// A path as Firebase's server writes it in pushes: no leading slash.
    static func wirePath(_ path: Path) -> String {
        path.keys.map(\.name).joined(separator: "/")
    }

    /// Writes `changes` as the object of a merge: `{"a/b": value, …}`, keys relative to the
    /// merge's location (a realtime `m` push, an event stream's `patch`).
    public static func writeChanges(_ changes: [WireChange], format: JSONFormat, to writer: inout JSONWriter) {
        writer.append(raw: "{")
        for (index, change) in changes.enumerated() {
            if index > 0 { writer.append(raw: ",") }
            writer.write(string: wirePath(change.path))
            writer.append(raw: ":")
            writer.write(change.node, format: format)
        }
        writer.append(raw: "}")
    }

    private static func writeFailure(_ error: DatabaseError, to writer: inout JSONWriter) {
        writer.append(raw: #"{"s":"#)
        writer.write(string: error.code)
        writer.append(raw: #","d":"#)
        // Firebase's own words for the refusals its clients know; Ember's message otherwise.
        switch error.code {
        case ErrorCode.permissionDenied: writer.write(string: "Permission denied")
        default: writer.write(string: error.message)
        }
        writer.append(raw: "}")
    }
}

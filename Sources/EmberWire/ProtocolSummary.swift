import EmberCore


/// One realtime protocol v5 message, read for a person: who sent it, its request number, its
/// action or answer, its path and a shortened body. What `trace` prints of each message.
///
/// The message is read from its text, as a WebSocket carries it (see
/// `../shared/reference/firebase-network.md`, "The realtime protocol"), so that an embedded
/// client's messages and those of a client connected with `--connect` read the same:
///
/// ```
/// → main #4 p /chat/m1 "hi"
/// ← main #4 ok
/// ← bob d /chat/m1 "hi"
/// ```
public struct ProtocolSummary: Sendable {
    /// The message as the protocol carries it.
    public let message: JSONValue
    /// `→` or `←`, the client, then the request number, the action, the path and the body.
    public let text: String

    /// Reads `text`, a message that crossed `direction` for `client`; a message that is not JSON
    /// is shown as it is.
    /// - Parameter width: the most characters of body shown (the whole message in `--json`).
    public init(client: String, direction: ProtocolDirection, text raw: String, width: Int = 60) {
        let arrow = direction == .toServer ? "→" : "←"
        guard let message = try? JSONValue(parsing: raw) else {
            self.message = .string(raw)
            text = "\(arrow) \(client) \(Self.shortened(raw, to: width))"
            return
        }
        self.message = message
        text = "\(arrow) \(client) " + Self.describe(message, width: width)
    }

    /// The request number, the action, the path and the body of `message`.
    private static func describe(_ message: JSONValue, width: Int) -> String {
        guard case .string(let type)? = message["t"], let data = message["d"] else { return shortened(message.serialized(), to: width) }
        if type == "c" {
            // Control: the hello, a shutdown, a redirect, a ping.
            switch data["t"] {
            case .string("h")?:
                let time = data["d"]?["ts"].map { " (server time \($0.serialized()))" } ?? ""
                return "hello\(time)"
            case .string("s")?: return "shutdown " + shortened(data["d"]?.serialized() ?? "", to: width)
            case .string("r")?: return "redirect " + shortened(data["d"]?.serialized() ?? "", to: width)
            case .string(let control)?: return "control \(control)"
            default: return shortened(data.serialized(), to: width)
            }
        }
        var parts: [String] = []
        if case .int(let request)? = data["r"] { parts.append("#\(request)") }
        let body = data["b"]
        if case .string(let action)? = data["a"] {
            parts.append(action)
            parts.append(contentsOf: describeBody(body, width: width))
        } else if let body, case .string(let status)? = body["s"] {
            // An answer to a request.
            parts.append(status)
            if let payload = body["d"], !isEmptyPayload(payload) {
                parts.append(shortened(payload.serialized(), to: width))
            }
        } else if let body {
            parts.append(shortened(body.serialized(), to: width))
        }
        return parts.joined(separator: " ")
    }

    /// A request's or an update's body: its path, then what else it carries (the data, a hash,
    /// a query, a tag).
    private static func describeBody(_ body: JSONValue?, width: Int) -> [String] {
        guard let body, case .object(let members) = body else { return body.map { [shortened($0.serialized(), to: width)] } ?? [] }
        var parts: [String] = []
        if case .string(let path)? = body["p"] { parts.append(path.hasPrefix("/") ? path : "/" + path) }
        var rest: [String] = []
        for (key, value) in members where key != "p" {
            switch key {
            case "d": rest.insert(value.serialized(), at: 0)
            case "cred": rest.append("cred=…")
            default: rest.append("\(key)=\(value.serialized())")
            }
        }
        if !rest.isEmpty { parts.append(shortened(rest.joined(separator: " "), to: width)) }
        return parts
    }

    /// Whether an answer's payload says nothing (`""`, `{}`, `null`).
    private static func isEmptyPayload(_ payload: JSONValue) -> Bool {
        switch payload {
        case .null: true
        case .string(let text): text.isEmpty
        case .object(let members): members.isEmpty
        default: false
        }
    }

    /// `text` cut to `width` characters, with `…` when cut.
    public static func shortened(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(1, width - 1))) + "…"
    }
}

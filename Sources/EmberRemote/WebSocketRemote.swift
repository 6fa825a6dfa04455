import EmberCore
import EmberEngine
import EmberInstance
import EmberNetworkShared
import NIOHTTP1

/// A server in another process reached over WebSocket with the realtime protocol v5: Ember's
/// `ember serve` or local socket, the Firebase emulator, or Firebase itself. Each client gets a
/// ``WebSocketConnection`` of its own.
///
/// Confined to the engine's thread, like the clients it serves.
public final class WebSocketRemote: RemoteServer {
    /// Where connections go: the address given, or the host a server redirected to.
    public private(set) var address: RemoteAddress
    /// Called with what the user should hear about the connections (a server that cannot be
    /// reached, a redirect, a server going away), on the engine's thread. The same problem is
    /// reported once until a connection succeeds.
    public var onNotice: ((String) -> Void)?
    /// An administrator's credential every connection presents first (`gauth`), before its
    /// client hears that it is open: the emulator's `owner`, or an OAuth access token for
    /// Firebase (as the Admin SDK does). A user's ID token is the client's own business.
    public let adminCredential: String?
    private var lastProblem: String?

    public init(address: RemoteAddress, adminCredential: String? = nil) {
        self.address = address
        self.adminCredential = adminCredential
    }

    public var url: String { address.text }

    public func connect(on engine: Engine) -> any RemoteConnection {
        WebSocketConnection(address: address, engine: engine, remote: self)
    }

    /// Reads or replaces the rules over REST (`/.settings/rules.json`), as the administrator
    /// the session presents (`--auth`); through a local socket (a second terminal on a
    /// database directory, which only the directory's owner can open) as `owner`.
    public func rules(_ text: String?, on engine: Engine, completion: @escaping (Result<String, DatabaseError>) -> Void) {
        engine.addExternalSource()
        engine.addMessagesInFlight(1)
        let address = address
        let credential: String? = switch address.endpoint {
        case .unixSocket: adminCredential ?? AdminCredential.ownerWord
        case .tcp: adminCredential
        }
        Self.request(text, at: address, credential: credential, engine: engine, answer: Answer(completion))
    }

    private static func request(_ text: String?, at address: RemoteAddress, credential: String?, engine: Engine, answer: Answer) {
        Task {
            let result = await rules(text, at: address, credential: credential)
            engine.submit {
                engine.addMessagesInFlight(-1)
                engine.removeExternalSource()
                answer.completion(result)
            }
        }
    }

    /// The completion of a rules request, carried to the engine's thread, where it runs.
    private final class Answer: @unchecked Sendable {
        let completion: (Result<String, DatabaseError>) -> Void
        init(_ completion: @escaping (Result<String, DatabaseError>) -> Void) { self.completion = completion }
    }

    private static func rules(_ text: String?, at address: RemoteAddress, credential: String?) async -> Result<String, DatabaseError> {
        do {
            if let text {
                let put = try await RemoteHTTP.send(.PUT, "/.settings/rules.json", body: text, to: address, credential: credential)
                guard put.status == 200 else { return .failure(refusal(put, at: address)) }
            }
            let get = try await RemoteHTTP.send(.GET, "/.settings/rules.json", body: nil, to: address, credential: credential)
            guard get.status == 200 else { return .failure(refusal(get, at: address)) }
            return .success(get.body)
        } catch {
            return .failure(.other(code: ErrorCode.disconnected, message: "cannot reach \(address.text) for its rules: \(error)"))
        }
    }

    /// The server's refusal in its own words (`{"error": "..."}`).
    private static func refusal(_ response: RemoteHTTP.Response, at address: RemoteAddress) -> DatabaseError {
        var words = response.body
        if case .string(let text)? = (try? JSONValue(parsing: response.body))?["error"] { words = text }
        switch response.status {
        case 401, 403:
            return .other(
                code: ErrorCode.permissionDenied,
                message: "\(address.text) refused (\(words)): its rules are read and set by an administrator (--auth owner on an emulator or ember serve, an access token on Firebase)")
        case 400:
            return .other(code: ErrorCode.invalidRules, message: "\(address.text) refused the rules: \(words)")
        default:
            return .other(code: ErrorCode.disconnected, message: "\(address.text) answered \(response.status): \(words)")
        }
    }

    /// A connection reached the server.
    func connected() {
        if lastProblem != nil { onNotice?("connected to \(address.text) again") }
        lastProblem = nil
    }

    /// A connection failed or ended for `problem`.
    func report(_ problem: String) {
        guard problem != lastProblem else { return }
        lastProblem = problem
        onNotice?(problem)
    }

    /// The server asked for connections to go to `host` from now on.
    func redirect(to host: String) {
        address = address.redirected(to: host)
    }
}

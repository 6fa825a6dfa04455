import EmberCore
import EmberNetworkShared

/// What `ember serve` serves and where: the address, the storage, the rules, the limits.
public struct ServeConfiguration: Sendable {
    /// The address to listen on: loopback unless told otherwise.
    public var host = "127.0.0.1"
    /// The port; 9000 (the Firebase emulator's) by default, 0 for any free port.
    public var port = 9000
    public var storage: ServeStorage = .memory
    /// Rules text to put in force in every namespace opened (JSON with comments); `nil` keeps
    /// each namespace's stored rules (open when none).
    public var rulesSource: String?
    /// Where ``rulesSource`` was read from (`--rules FILE`), named in its compile errors.
    public var rulesFile: String?
    /// The namespace of requests that name none (`ns`), and the one a database directory holds.
    public var defaultNamespace = "default"
    /// Other namespaces to serve (`--ns` again): opened at start, created if they do not exist.
    /// Where rules are in force, no one but the administrator creates a namespace otherwise.
    public var namespaces: [String] = []
    public var limits = NetworkLimits()
    /// Verifies signed Firebase ID tokens (`--project`): with none, tokens are taken unverified
    /// and unsigned ones too, as the emulator does.
    public var tokenVerifier: TokenVerifier?
    /// The administrator's credential over TCP (`--admin-token`): the emulator's `owner` unless
    /// a secret replaces it. The local socket of a database directory always takes `owner`.
    public var adminCredential: AdminCredential = .owner

    /// Origins of web pages allowed besides this machine's (`--allow-origin`; `*` is every
    /// origin): see ``OriginPolicy``.
    public var allowedOrigins: [String] = []

    /// Whether each connection's realtime protocol messages are logged as they cross
    /// (`--trace`), as the shell's `trace` prints them.
    public var tracesMessages = false

    public init() {}

    /// Which hosts and web pages may use the TCP port.
    public var originPolicy: OriginPolicy { OriginPolicy(listeningOn: host, allowedOrigins: allowedOrigins) }

    /// Whether `host` reaches beyond this machine.
    public var isLoopbackOnly: Bool {
        ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
    }
}

import Foundation

/// Which web pages may use the server, so that a page a browser opened elsewhere cannot
/// administer a server on this machine: by the request's `Host` (DNS rebinding: a name of the
/// attacker's that now resolves to 127.0.0.1 is not one the server is served as) and its
/// `Origin` (a page of another origin, whose browser would otherwise send its requests and, with
/// `Access-Control-Allow-Origin: *`, read the answers).
///
/// Accepted hosts (the port is not checked): `localhost`, `127.0.0.1`, `[::1]`, the `--host`
/// the server listens on, and, when that is every address (`0.0.0.0`, `::`), any IP address
/// and this machine's name. Accepted origins: `http(s)://localhost|127.0.0.1|[::1]` on any port
/// (a dev server, the Emulator UI) and the `--allow-origin` list (`*` allows every origin). A
/// request with no `Origin` (Node, curl, the Admin SDKs: not a browser page) is accepted, unless
/// a browser says that a page of another site made it (`Sec-Fetch-Site`, not a navigation): a
/// `<script>` loading JSONP (`callback=`) sends no `Origin`, and a page of any origin could read
/// the answer. Its `Referer`, when there is one, names the page's origin; the test is then that of
/// `Origin` (a real browser found this: `BrowserOriginTests`).
///
/// The Firebase emulator answers `Access-Control-Allow-Origin: *` to everyone
/// (`../shared/reference/firebase-network.md` §1.5); Ember answers a page's own origin when it
/// is allowed and refuses the rest.
public struct OriginPolicy: Sendable, Hashable {
    /// The lowercased host names accepted besides the loopback ones.
    private var hosts: Set<String>
    /// Whether any IP address is accepted as a host (the server listens on every address).
    private var anyAddress: Bool
    /// The exact origins accepted besides the loopback ones, lowercased, without a final `/`.
    private var origins: Set<String>
    /// Whether every origin is accepted (`--allow-origin '*'`).
    private var anyOrigin: Bool

    /// The policy of a server listening on `host`, allowing `allowedOrigins` besides loopback.
    public init(listeningOn host: String, allowedOrigins: [String] = []) {
        let bound = Self.hostName(host.hasPrefix("[") ? host : (host.contains(":") ? "[\(host)]" : host))
        hosts = [bound]
        anyAddress = ["0.0.0.0", "[::]", "::"].contains(bound)
        if anyAddress {
            let name = ProcessInfo.processInfo.hostName.lowercased()
            if !name.isEmpty { hosts.insert(name) }
        }
        anyOrigin = allowedOrigins.contains("*")
        origins = Set(allowedOrigins.map(Self.normalized))
    }

    /// Why `origin` cannot be allowed with `--allow-origin`; `nil` when it can.
    public static func problem(withOrigin origin: String) -> String? {
        if origin == "*" { return nil }
        guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()),
              url.host != nil, url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil
        else {
            return "an origin is scheme://host[:port] with http or https (as a browser sends it), or *"
        }
        return nil
    }

    /// Whether a request whose `Host` header says `host` is for this server; a request without
    /// one (HTTP/1.0) is.
    public func allows(host: String?) -> Bool {
        guard let host else { return true }
        let name = Self.hostName(host)
        if ["localhost", "127.0.0.1", "[::1]"].contains(name) || hosts.contains(name) { return true }
        return anyAddress && Self.isAddress(name)
    }

    /// Whether a page of `origin` may use the server; no `Origin` (not a browser page) may.
    public func allows(origin: String?) -> Bool {
        guard let origin else { return true }
        if anyOrigin { return true }
        let normalized = Self.normalized(origin)
        return Self.isLoopback(origin: normalized) || origins.contains(normalized)
    }

    /// Whether the browser request whose headers say `origin`, `Sec-Fetch-Site` (`fetchSite`),
    /// `Sec-Fetch-Mode` (`fetchMode`) and `Referer` (`referer`) may use the server. One without an
    /// `Origin` that a page of another site made (`cross-site` or `same-site`), other than a
    /// navigation (whose page is the one shown, not the one that linked to it), is a page's
    /// `<script>`, `<img>` or `<link>`: allowed only when its `Referer`'s origin is (a page with no
    /// `Referer` cannot be told from an attacker's). Clients that are not browsers send neither
    /// `Origin` nor `Sec-Fetch-Site`.
    public func allows(origin: String?, fetchSite: String?, fetchMode: String?, referer: String?) -> Bool {
        if let origin { return allows(origin: origin) }
        if anyOrigin { return true }
        guard let site = fetchSite?.lowercased(), site == "cross-site" || site == "same-site", fetchMode?.lowercased() != "navigate" else {
            return true
        }
        guard let referer, let page = Self.origin(ofURL: referer) else { return false }
        return allows(origin: page)
    }

    /// The origin (`scheme://host[:port]`) of an absolute http(s) URL, as a `Referer` gives it.
    static func origin(ofURL url: String) -> String? {
        let text = url.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = text.range(of: "://") else { return nil }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return nil }
        return "\(scheme)://\(authority)"
    }

    /// `http(s)://localhost|127.0.0.1|[::1]` with any port or none.
    static func isLoopback(origin: String) -> Bool {
        for scheme in ["http://", "https://"] where origin.hasPrefix(scheme) {
            let authority = origin.dropFirst(scheme.count)
            for host in ["localhost", "127.0.0.1", "[::1]"] where authority.hasPrefix(host) {
                let rest = authority.dropFirst(host.count)
                if rest.isEmpty { return true }
                if rest.first == ":", rest.count > 1, rest.dropFirst().allSatisfy(\.isASCII), rest.dropFirst().allSatisfy(\.isNumber) {
                    return true
                }
            }
        }
        return false
    }

    /// The host name of a `Host` header, lowercased, without its port (IPv6 in brackets).
    static func hostName(_ header: String) -> String {
        let text = header.trimmingCharacters(in: .whitespaces).lowercased()
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") { return String(text[...end]) }
        if let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return text
    }

    /// Whether `name` (as ``hostName(_:)`` gives it) is an IP address: a name cannot be rebound
    /// to one, and a page of an address is an origin of its own.
    static func isAddress(_ name: String) -> Bool {
        if name.hasPrefix("[") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in UInt8(part) != nil }
    }

    private static func normalized(_ origin: String) -> String {
        var text = origin.trimmingCharacters(in: .whitespaces).lowercased()
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}

import EmberCore
import EmberWire
import Foundation

/// Where a server in another process listens, and the database there: what `ember --connect`
/// takes, in any of the forms Firebase's clients take.
///
/// - `ws://HOST:PORT/?ns=NAME`, `http://HOST:PORT/?ns=NAME` (the emulator's database URL):
///   plain WebSocket; without `ns`, the server's default namespace.
/// - `wss://…`, `https://NAME.firebaseio.com`, `https://NAME.REGION.firebasedatabase.app`:
///   WebSocket over TLS; the namespace is the host's first label unless `ns` names it.
/// - `unix:PATH` (Ember's own local socket, in a database directory): plain WebSocket.
///
/// Every form connects to `/.ws?v=5&ns=NAME`, as firebase-js-sdk
/// (`packages/database/src/realtime/WebSocketConnection.ts`, `connectionURL`) does.
public struct RemoteAddress: Sendable, Hashable, CustomStringConvertible {
    /// How to reach the server.
    public enum Endpoint: Sendable, Hashable {
        case tcp(host: String, port: Int, tls: Bool)
        case unixSocket(path: String)
    }

    public var endpoint: Endpoint
    /// The database's namespace, when the address names one.
    public var namespace: String?
    /// The address as the user gave it.
    public let text: String

    /// Reads an address.
    /// - Throws: `invalid_argument` saying what is wrong with it.
    public init(parsing text: String) throws(DatabaseError) {
        self.text = text
        if text.hasPrefix("unix:") {
            let path = String(text.dropFirst(5))
            guard path.hasPrefix("/") else { throw Self.invalid(text, "a unix: address needs an absolute socket path") }
            endpoint = .unixSocket(path: path)
            namespace = nil
            return
        }
        guard let schemeEnd = text.range(of: "://") else {
            throw Self.invalid(text, "expected ws://HOST:PORT/?ns=NAME, https://NAME.firebaseio.com or unix:PATH")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        let tls: Bool
        switch scheme {
        case "ws", "http": tls = false
        case "wss", "https": tls = true
        default: throw Self.invalid(text, "the scheme must be ws, wss, http or https, not \(scheme)")
        }
        var rest = text[schemeEnd.upperBound...]
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        let authority = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard !authority.isEmpty else { throw Self.invalid(text, "it names no host") }
        var host = authority
        var port = tls ? 443 : 80
        if authority.hasPrefix("[") {
            // [IPv6]:port
            guard let close = authority.firstIndex(of: "]") else { throw Self.invalid(text, "an IPv6 host needs its closing ]") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                guard let number = Int(after.dropFirst()), (1...65_535).contains(number) else { throw Self.invalid(text, "the port is not a number from 1 to 65535") }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65_535).contains(number) else {
                throw Self.invalid(text, "the port is not a number from 1 to 65535")
            }
            port = number
        }
        guard !host.isEmpty else { throw Self.invalid(text, "it names no host") }
        endpoint = .tcp(host: host, port: port, tls: tls)
        var named: String?
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.first == "ns", parts.count == 2 { named = String(parts[1]).removingPercentEncoding ?? String(parts[1]) }
        }
        if named == nil, host.hasSuffix(".firebaseio.com") || host.hasSuffix(".firebasedatabase.app") {
            named = host.split(separator: ".").first.map(String.init)
        }
        if let named, !Self.isValidNamespace(named) {
            throw Self.invalid(text, "\"\(named)\" is not a namespace name: 1 to 63 letters, digits, '-' or '_'")
        }
        namespace = named
    }

    /// The address of the local socket `path`.
    public init(unixSocket path: String) {
        endpoint = .unixSocket(path: path)
        namespace = nil
        text = "unix:" + path
    }

    /// The request target of the WebSocket upgrade: `/.ws?v=5&ns=NAME`.
    public var requestTarget: String {
        var target = "/.ws?v=" + RealtimeCodec.version
        if let namespace { target += "&ns=" + namespace }
        return target
    }

    /// The `Host` header of the upgrade.
    public var hostHeader: String {
        switch endpoint {
        case .tcp(let host, let port, let tls):
            let shown = host.contains(":") ? "[\(host)]" : host
            return port == (tls ? 443 : 80) ? shown : "\(shown):\(port)"
        case .unixSocket: return "localhost"
        }
    }

    /// The same address on another host (a server's redirect, `r`, names a host such as
    /// `s-usc1c-nss-2.firebaseio.com`), keeping port and TLS.
    public func redirected(to host: String) -> RemoteAddress {
        var copy = self
        if case .tcp(_, let port, let tls) = endpoint { copy.endpoint = .tcp(host: host, port: port, tls: tls) }
        return copy
    }

    /// A name for a directory that belongs to `url` (the clients' caches of `ember --connect`):
    /// `url` with every character but letters, digits, `.`, `-` and `_` made `_`; a long one is
    /// cut, and a hash of the whole keeps it apart from others.
    public static func directoryName(for url: String) -> String {
        let name = String(url.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? Character(scalar) : "_"
        })
        return name.count > 120 ? String(name.prefix(100)) + "_" + stableHash(url) : name
    }

    /// FNV-1a of `text`'s UTF-8, in base 36: the same in every process (Swift's `hashValue` is
    /// seeded per process).
    public static func stableHash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 36)
    }

    public var description: String { text }

    private static func invalid(_ text: String, _ reason: String) -> DatabaseError {
        .other(code: ErrorCode.invalidArgument, message: "cannot connect to \(text): \(reason)")
    }

    /// Letters, digits, `-` and `_`, 1 to 63 of them (a DNS label, as Firebase's database names).
    public static func isValidNamespace(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 63
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}

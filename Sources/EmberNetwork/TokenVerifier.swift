import Crypto
import EmberCore
import EmberNetworkShared
import EmberWire
import Foundation
import NIOCore
import NIOHTTP1
import SwiftASN1
import Synchronization
import X509
import _CryptoExtras

/// Verifies signed Firebase ID tokens as Firebase's servers do, for `ember serve --project ID`:
/// an RS256 signature by one of Google's keys (or the keys given with `--certs`), the project as
/// audience and in the issuer, a user, and the times.
///
/// The checks and their wording follow the Admin SDK's verifier (firebase-admin-python
/// `firebase_admin/_token_gen.py`, `TokenVerifier` and `_JWTVerifier.verify`): `kid` in the
/// header, `alg` RS256, `aud` the project id, `iss` `https://securetoken.google.com/ID`, `sub`
/// a non-empty string of at most 128 characters, `iat` not in the future, `exp` not past, and
/// the signature by the key `kid` names. Without a project (the emulator's way) nothing is
/// verified and unsigned tokens are taken; with one, unsigned tokens are refused.
///
/// Keys come from a file or a URL holding either Google's format (`{"KID": "-----BEGIN
/// CERTIFICATE-----…"}`, what
/// `https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com`
/// serves) or a JSON Web Key Set (`{"keys": [{"kid", "kty": "RSA", "n", "e"}]}`); PEM public
/// keys are taken too. A URL's keys are kept for its `Cache-Control: max-age`, fetched again
/// when they expire or when a token names a key they lack (at most once a minute).
///
/// Any thread.
public final class TokenVerifier: Sendable {
    /// Where the keys come from.
    public enum KeySource: Sendable, Hashable {
        case file(String)
        case url(URL)
    }

    /// Google's certificates for Firebase ID tokens.
    public static let googleCertificates = URL(string: "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")!

    /// The Firebase project whose tokens are taken.
    public let projectID: String
    public let source: KeySource
    /// The clock that says whether a token has expired.
    public let clock: any DatabaseClock
    private let cache = Mutex(KeyCache())
    /// The fetch under way, which every caller of ``refresh()`` meanwhile waits for: one fetch at
    /// a time (40 tokens with unknown keys started 8 to 25 fetches at once).
    private let fetching = Mutex<Task<Void, Never>?>(nil)
    /// Seconds a token's `iat` may be ahead of this machine's clock.
    private static let clockSkew: Int64 = 10

    private struct KeyCache {
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        /// When the keys must be fetched again (milliseconds since 1970).
        var expires: Int64 = .min
        /// When they were last fetched, to fetch at most once a minute for an unknown key.
        var fetched: Int64 = 0
        /// Why the last fetch failed.
        var failure: String?
    }

    /// What a check found.
    public enum Outcome: Sendable {
        case verified(AuthToken)
        case refused(DatabaseError)
        /// The keys must be (re)fetched first: ``verify(_:)`` does.
        case needsKeys
    }

    /// A verifier for `projectID`'s tokens. A key file is read now.
    /// - Throws: ``NetworkError`` when the file cannot be read or holds no key.
    public init(projectID: String, source: KeySource, clock: any DatabaseClock = SystemClock()) throws(NetworkError) {
        self.projectID = projectID
        self.source = source
        self.clock = clock
        if case .file(let path) = source {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw NetworkError(.badRequest, "cannot read the keys file \(path)")
            }
            do {
                let keys = try Self.keys(from: data)
                cache.withLock { $0.keys = keys; $0.expires = .max }
            } catch {
                throw NetworkError(.badRequest, "the keys file \(path): \(error.message)")
            }
        }
    }

    /// Checks `text` with the keys at hand, fetching them first when they must be.
    public func verify(_ text: String) async -> Result<AuthToken, DatabaseError> {
        switch check(text) {
        case .verified(let token): return .success(token)
        case .refused(let error): return .failure(error)
        case .needsKeys:
            await refresh()
            return checkAfterFetching(text)
        }
    }

    /// Checks `text` after ``refresh()``: a key still missing refuses it, saying why.
    public func checkAfterFetching(_ text: String) -> Result<AuthToken, DatabaseError> {
        switch check(text, fetching: false) {
        case .verified(let token): return .success(token)
        case .refused(let error): return .failure(error)
        case .needsKeys: preconditionFailure("a check that may not fetch asked for keys")
        }
    }

    /// Checks `text` with the keys at hand: `.needsKeys` when they must be fetched first
    /// (expired, or none names the token's `kid` and the last fetch is over a minute old) and
    /// `fetching` allows it; without, a missing key refuses the token, saying why.
    /// - Complexity: one RSA signature check (about 50 µs for a 2048-bit key).
    public func check(_ text: String, fetching: Bool = true) -> Outcome {
        let now = clock.now()
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .refused(Self.invalid("a token has three parts separated by '.', this one has \(parts.count)")) }
        guard let headerBytes = Base64URL.decode(parts[0]), let header = try? JSONValue(parsing: String(decoding: headerBytes, as: UTF8.self))
        else { return .refused(Self.invalid("the token's header is not base64url JSON")) }
        guard case .string(let kid)? = header["kid"] else { return .refused(Self.invalid("Firebase ID token has no \"kid\" claim.")) }
        guard case .string("RS256")? = header["alg"] else {
            let algorithm = header["alg"].map { $0.serialized() } ?? "none"
            return .refused(Self.invalid("Firebase ID token has incorrect algorithm. Expected \"RS256\" but got \(algorithm)."))
        }
        let token: AuthToken
        do {
            token = try AuthToken(parsing: text)
        } catch {
            return .refused(error)
        }
        let issuer = "https://securetoken.google.com/\(projectID)"
        // Byte for byte: a pattern of a `String` would take a canonically equivalent one.
        guard case .string(let audience)? = token.claims["aud"], StringOrder.bytesEqual(audience, projectID) else {
            let audience = token.claims["aud"].map { $0.serialized() } ?? "none"
            return .refused(Self.invalid("Firebase ID token has incorrect \"aud\" (audience) claim. Expected \"\(projectID)\" but got \(audience)."))
        }
        guard case .string(let claimedIssuer)? = token.claims["iss"], StringOrder.bytesEqual(claimedIssuer, issuer) else {
            let got = token.claims["iss"].map { $0.serialized() } ?? "none"
            return .refused(Self.invalid("Firebase ID token has incorrect \"iss\" (issuer) claim. Expected \"\(issuer)\" but got \(got)."))
        }
        guard case .string(let subject)? = token.claims["sub"], !subject.isEmpty, subject.count <= 128 else {
            return .refused(Self.invalid("Firebase ID token has no \"sub\" (subject) claim, or one that is empty or longer than 128 characters."))
        }
        if case .int(let issued)? = token.claims["iat"], issued > now / 1000 + Self.clockSkew {
            return .refused(Self.invalid("Firebase ID token was issued in the future (\"iat\" \(issued), now \(now / 1000))."))
        }
        if token.isExpired(at: now) {
            return .refused(.other(code: ErrorCode.expiredToken, message: "Firebase ID token has expired (\"exp\" \(token.expiresAt / 1000), now \(now / 1000))."))
        }
        let (key, mayFetch, failure) = cache.withLock { cache in
            // Past their age a URL's keys are fetched again; if that fails they are used still.
            let fresh = now < cache.expires
            // Expired keys are fetched at once, an unknown key (or after a failure) once a minute.
            let wait: Int64 = cache.failure == nil && !fresh ? 0 : 60_000
            // The key named exactly `kid` (a dictionary of `String`s would take a canonically
            // equivalent name).
            let key = cache.keys.first { StringOrder.bytesEqual($0.key, kid) }?.value
            return (fresh || !fetching ? key : nil, now - cache.fetched >= wait, cache.failure)
        }
        guard let key else {
            if case .url = source, fetching, mayFetch { return .needsKeys }
            let reason = failure.map { "the keys could not be fetched: \($0)" }
            return .refused(
                Self.invalid(reason ?? "Firebase ID token has \"kid\" claim \"\(kid)\" which does not correspond to a known public key."))
        }
        guard let signature = Base64URL.decode(parts[2]) else { return .refused(Self.invalid("the token's signature is not base64url")) }
        let signed = Array(text.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        let valid = key.isValidSignature(
            _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: signed), padding: .insecurePKCS1v1_5)
        guard valid else { return .refused(Self.invalid("Firebase ID token has an invalid signature.")) }
        return .verified(token)
    }

    /// Fetches the keys of a URL source (nothing for a file); a caller that comes while a fetch
    /// is under way waits for that one instead of starting another.
    public func refresh() async {
        guard case .url = source else { return }
        let task = fetching.withLock { slot in
            if let running = slot { return running }
            let task = Task {
                await self.fetch()
                self.fetching.withLock { $0 = nil }
            }
            slot = task
            return task
        }
        await task.value
    }

    private func fetch() async {
        guard case .url(let url) = source else { return }
        let now = clock.now()
        do {
            // On SwiftNIO (RemoteHTTP), not URLSession: see RemoteHTTP for why.
            let response = try await RemoteHTTP.get(url, timeout: .seconds(10))
            if response.status != 200 {
                throw KeyError(message: "\(url.absoluteString) answered \(response.status)")
            }
            let keys = try Self.keys(from: Data(response.body.utf8))
            let maxAge = response.headers.first(name: "Cache-Control").flatMap(Self.maxAge) ?? 3600
            cache.withLock { cache in
                cache.keys = keys
                cache.fetched = now
                cache.expires = now + maxAge * 1000
                cache.failure = nil
            }
        } catch let error as KeyError {
            cache.withLock { $0.fetched = now; $0.failure = error.message }
        } catch {
            cache.withLock { $0.fetched = now; $0.failure = "\(url.absoluteString): \(error)" }
        }
    }

    /// Why fetching or reading keys failed.
    struct KeyError: Error {
        let message: String
    }

    /// The keys of a document in Google's certificate format, a JSON Web Key Set, or a map of
    /// PEM public keys.
    static func keys(from data: Data) throws(KeyError) -> [String: _RSA.Signing.PublicKey] {
        guard case .object(let members)? = try? JSONValue(parsing: String(decoding: data, as: UTF8.self)) else {
            throw KeyError(message: "not a JSON object of keys")
        }
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        if case .array(let set)? = JSONValue.object(members)["keys"] {
            for entry in set {
                guard case .string(let kid)? = entry["kid"], case .string("RSA")? = entry["kty"], case .string(let n)? = entry["n"],
                    case .string(let e)? = entry["e"], let modulus = Base64URL.decode(Substring(n)), let exponent = Base64URL.decode(Substring(e)),
                    let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
                else { continue }
                keys[kid] = key
            }
        } else {
            for (kid, value) in members {
                guard case .string(let pem) = value else { continue }
                if pem.contains("BEGIN CERTIFICATE") {
                    guard let certificate = try? Certificate(pemEncoded: pem), let key = _RSA.Signing.PublicKey(certificate.publicKey) else {
                        throw KeyError(message: "the certificate \"\(kid)\" is not an RSA certificate in PEM")
                    }
                    keys[kid] = key
                } else {
                    guard let key = try? _RSA.Signing.PublicKey(pemRepresentation: pem) else {
                        throw KeyError(message: "the key \"\(kid)\" is not an RSA public key in PEM")
                    }
                    keys[kid] = key
                }
            }
        }
        guard !keys.isEmpty else { throw KeyError(message: "no RSA key in it") }
        return keys
    }

    /// The `max-age` of a `Cache-Control` header, in seconds.
    static func maxAge(_ header: String) -> Int64? {
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int64(parts[1]), seconds >= 0 { return seconds }
        }
        return nil
    }

    private static func invalid(_ reason: String) -> DatabaseError {
        .other(code: ErrorCode.invalidToken, message: "invalid token: \(reason)")
    }
}


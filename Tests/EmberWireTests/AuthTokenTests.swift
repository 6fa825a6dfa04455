import EmberCore
import EmberWire
import Foundation
import Testing

/// Auth tokens as the Firebase emulator's clients make them (firebase-js-sdk
/// `packages/util/src/emulator.ts`, `createMockUserToken`) and as the server reads them.
@Suite("AuthToken")
struct AuthTokenTests {
    @Test("an unsigned token is the emulator's: alg none, an empty signature, the standard claims, then the user's")
    func unsignedTokenShape() throws {
        let token = try AuthToken.unsigned(
            claims: ["uid": "alice", "email": "a@x", "admin": true], issuedAt: 1_700_000_000_500, lifetime: 3_600_000)
        let parts = token.text.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[2].isEmpty)
        let header = try #require(Data(base64Encoded: Self.padded(parts[0])))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"none","type":"JWT"}"#)
        #expect(token.uid == "alice")
        #expect(token.provider == "custom")
        #expect(token.expiresAt == 1_700_003_601_000, "an hour from 1_700_000_000_500, rounded up to the second")
        #expect(try AuthToken.unsigned(claims: ["uid": "a"], issuedAt: 1_000, lifetime: 1_000).expiresAt == 2_000)
        #expect(token.claims["iss"] == "https://securetoken.google.com/demo-project")
        #expect(token.claims["aud"] == "demo-project")
        #expect(token.claims["iat"] == .int(1_700_000_000))
        #expect(token.claims["auth_time"] == .int(1_700_000_000))
        #expect(token.claims["user_id"] == "alice")
        #expect(token.claims["firebase"]?["sign_in_provider"] == "custom")
        #expect(token.claims["email"] == "a@x")
        #expect(token.claims["uid"] == nil, "uid is sub, as in an ID token")
        #expect(token.auth["uid"] == "alice")
        #expect(token.auth["provider"] == "custom")
        #expect(token.auth["token"]?["admin"] == .bool(true))
        #expect(token.shownClaims == ["uid": "alice", "email": "a@x", "admin": true])
    }

    @Test("a token made by the Web SDK's createMockUserToken reads the same")
    func readsTheWebSDKsTokens() throws {
        // createMockUserToken({sub: "bob", email: "b@x"}, "demo") with iat 0, as the SDK builds it.
        let payload = #"{"iss":"https://securetoken.google.com/demo","aud":"demo","iat":0,"exp":3600,"auth_time":0,"sub":"bob","user_id":"bob","firebase":{"sign_in_provider":"custom","identities":{}},"email":"b@x"}"#
        let text = Self.base64url(#"{"alg":"none","type":"JWT"}"#) + "." + Self.base64url(payload) + "."
        let token = try AuthToken(parsing: text)
        #expect(token.uid == "bob")
        #expect(token.expiresAt == 3_600_000)
        // Issued at 0 by the SDK's defaults: the emulator takes it at any time, so Ember does.
        #expect(!token.isExpired(at: 1_800_000_000_000))
        #expect(token.auth["token"]?["email"] == "b@x")
        #expect(token.text == text)
    }

    @Test("an unsigned token issued at any other time expires at its exp")
    func expiry() throws {
        let payload = #"{"iat":1000,"exp":4600,"sub":"bob"}"#
        let token = try AuthToken(parsing: Self.base64url(#"{"alg":"none","type":"JWT"}"#) + "." + Self.base64url(payload) + ".")
        #expect(token.isExpired(at: 4_600_000) && !token.isExpired(at: 4_599_999))
    }

    @Test("a provider given in the claims is the sign-in provider")
    func provider() throws {
        let token = try AuthToken.unsigned(claims: ["uid": "a", "provider": "password"], issuedAt: 0)
        #expect(token.provider == "password")
        #expect(token.auth["provider"] == "password")
    }

    @Test("malformed tokens are invalid_token, saying why")
    func malformed() {
        func reason(_ text: String) -> String? {
            do {
                _ = try AuthToken(parsing: text)
                return nil
            } catch {
                #expect(error.code == "invalid_token")
                return error.message
            }
        }
        #expect(reason("owner")?.contains("three parts") == true)
        #expect(reason("a.@@@.b")?.contains("base64url") == true)
        #expect(reason("a.\(Self.base64url("[1]")).")?.contains("not an object") == true)
        #expect(reason("a.\(Self.base64url(#"{"exp":1}"#)).")?.contains("no user") == true)
        #expect(reason("a.\(Self.base64url(#"{"sub":"x"}"#)).")?.contains("no expiry") == true)
        #expect(reason("a.\(Self.base64url("{")).")?.contains("not JSON") == true)
    }

    @Test("claims that name no user, or a bad lifetime, are refused before any token is made")
    func badClaims() {
        for (claims, lifetime) in [
            (JSONValue.string("alice"), Int64(1)), (["name": "x"], 1), (["uid": ""], 1), (["uid": 5], 1), (["uid": "a"], 0),
            (["uid": .string(String(repeating: "x", count: 129))], 1), (["uid": "a", "provider": 1], 1),
        ] {
            #expect(throws: DatabaseError.self, "\(claims)") { try AuthToken.unsigned(claims: claims, issuedAt: 0, lifetime: lifetime) }
        }
    }

    static func base64url(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func padded(_ part: Substring) -> String {
        let text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return text + String(repeating: "=", count: (4 - text.count % 4) % 4)
    }
}

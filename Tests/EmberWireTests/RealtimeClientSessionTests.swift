import EmberCore
import EmberWire
import Testing

/// The client's side of the realtime protocol: what it sends (as firebase-js-sdk's
/// PersistentConnection does) and how it reads the server's answers and pushes.
struct RealtimeClientSessionTests {
    private func sent(_ outgoing: RealtimeClientSession.Outgoing) -> String {
        guard case .send(let text) = outgoing else { return "" }
        return text
    }

    private static let emberHello = #"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"localhost","s":"1","ember":1}}}"#
    private static let firebaseHello = #"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"s-usc1.firebaseio.com","s":"x"}}}"#

    @Test("the hello opens the session and says whether the server is Ember")
    func hello() {
        var session = RealtimeClientSession()
        #expect(session.receive(frame: Self.firebaseHello) == [.message(.handshake(serverTime: 1_700_000_000_000))])
        #expect(session.isOpen && !session.speaksEmber && session.host == "s-usc1.firebaseio.com")
        var ember = RealtimeClientSession()
        _ = ember.receive(frame: Self.emberHello)
        #expect(ember.speaksEmber)
    }

    @Test("requests are written as the Web SDK writes them; write keys and resume go to Ember only")
    func requests() throws {
        var firebase = RealtimeClientSession()
        _ = firebase.receive(frame: Self.firebaseHello)
        #expect(
            sent(firebase.send(.put(requestID: 1, path: "a/b", data: try Node(jsonText: #"{"x":1,".priority":2}"#), hash: nil, writeKey: "w:1")))
                == #"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/a/b","d":{"x":1,".priority":2}}}}"#)
        #expect(
            sent(firebase.send(.merge(requestID: 2, path: "a", changes: [WireChange("b/c", Node(.int(1))), WireChange("d", .empty)])))
                == #"{"t":"d","d":{"r":2,"a":"m","b":{"p":"/a","d":{"b/c":1,"d":null}}}}"#)
        #expect(sent(firebase.send(.listen(requestID: 3, query: .default(at: "a"), tag: nil, hash: ""))) == #"{"t":"d","d":{"r":3,"a":"q","b":{"p":"/a","h":""}}}"#)
        #expect(firebase.send(.resume(requestID: 4, client: "c", writers: ["w": 1])) == .answer(.ack(requestID: 4, status: .ok())))
        #expect(sent(firebase.send(.adminAuth(requestID: 5, credential: "owner", override: .none))) == #"{"t":"d","d":{"r":5,"a":"gauth","b":{"cred":"owner"}}}"#)
        #expect(sent(firebase.send(.onDisconnectCancel(requestID: 6, path: "p"))) == #"{"t":"d","d":{"r":6,"a":"oc","b":{"p":"/p"}}}"#)

        var ember = RealtimeClientSession()
        _ = ember.receive(frame: Self.emberHello)
        #expect(
            sent(ember.send(.put(requestID: 1, path: "a", data: Node(.int(1)), hash: "h=", writeKey: "w:1")))
                == #"{"t":"d","d":{"r":1,"a":"p","b":{"p":"/a","d":1,"h":"h=","k":"w:1"}}}"#)
        #expect(sent(ember.send(.resume(requestID: 2, client: "c", writers: ["b": 2, "a": 1]))) == #"{"t":"d","d":{"r":2,"a":"ember.resume","b":{"c":"c","w":{"a":1,"b":2}}}}"#)
    }

    @Test("answers are read by what was asked: a get's data, an ack, a refusal with Firebase's code")
    func answers() throws {
        var session = RealtimeClientSession()
        _ = session.receive(frame: Self.firebaseHello)
        _ = session.send(.get(requestID: 1, query: .default(at: "a")))
        _ = session.send(.put(requestID: 2, path: "a", data: Node(.int(1)), hash: "x", writeKey: nil))
        _ = session.send(.put(requestID: 3, path: "b", data: Node(.int(1)), hash: nil, writeKey: nil))
        #expect(session.unanswered == 3)
        #expect(
            session.receive(frame: #"{"t":"d","d":{"r":1,"b":{"s":"ok","d":{"x":{".value":1,".priority":"p"}}}}}"#)
                == [.message(.getResult(requestID: 1, result: .data(try Node(jsonText: #"{"x":{".value":1,".priority":"p"}}"#))))])
        #expect(session.receive(frame: #"{"t":"d","d":{"r":2,"b":{"s":"datastale","d":"transaction hash does not match"}}}"#) == [.message(.ack(requestID: 2, status: .failed(.dataStale())))])
        #expect(session.receive(frame: #"{"t":"d","d":{"r":3,"b":{"s":"permission_denied","d":"Permission denied"}}}"#) == [.message(.ack(requestID: 3, status: .failed(.permissionDenied())))])
        #expect(session.unanswered == 0)
        // An answer to nothing asked is ignored.
        #expect(session.receive(frame: #"{"t":"d","d":{"r":99,"b":{"s":"ok","d":""}}}"#).isEmpty)
    }

    @Test("pushes: data and merges with tags, a revoked listen found by its query object in any key order, auth revoked")
    func pushes() throws {
        var session = RealtimeClientSession()
        _ = session.receive(frame: Self.firebaseHello)
        let query = QuerySpec(path: "items", params: try QueryParams(orderBy: .key, start: nil, end: nil, limit: .first(2)))
        _ = session.send(.listen(requestID: 1, query: query, tag: 7, hash: ""))
        #expect(
            session.receive(frame: #"{"t":"d","d":{"a":"d","b":{"p":"items","d":{"a":1},"t":7}}}"#)
                == [.message(.dataUpdate(path: "items", data: try Node(jsonText: #"{"a":1}"#), tag: 7))])
        #expect(
            session.receive(frame: #"{"t":"d","d":{"a":"m","b":{"p":"items","d":{"b":2,"c/d":null}}}}"#)
                == [.message(.mergeUpdate(path: "items", changes: [WireChange("b", Node(.int(2))), WireChange("c/d", .empty)], tag: nil))])
        // The query object comes back with its keys in another order.
        var members = query.params.wireObject
        if case .object(let pairs) = members { members = .object(pairs.reversed()) }
        let revoked = #"{"t":"d","d":{"a":"c","b":{"p":"items","q":["# + members.serialized() + "]}}}"
        #expect(session.receive(frame: revoked) == [.message(.listenRevoked(query: query, tag: 7, error: .permissionDenied(at: "items")))])
        #expect(
            session.receive(frame: #"{"t":"d","d":{"a":"ac","b":{"s":"expired_token","d":"Auth token is expired."}}}"#)
                == [.message(.authRevoked(error: .other(code: "expired_token", message: "Auth token is expired.")))])
    }

    @Test("control messages: redirect, shutdown, errors; split messages are put back together; garbage is a notice")
    func control() {
        var session = RealtimeClientSession()
        #expect(session.receive(frame: #"{"t":"c","d":{"t":"r","d":"s-usc1c-nss-2.firebaseio.com"}}"#) == [.redirect(host: "s-usc1c-nss-2.firebaseio.com")])
        #expect(session.receive(frame: #"{"t":"c","d":{"t":"s","d":"Database lives in a different region"}}"#) == [.shutdown(reason: "Database lives in a different region")])
        #expect(session.receive(frame: #"{"t":"c","d":{"t":"o","d":null}}"#).isEmpty)
        guard case .notice = session.receive(frame: "{oops").first else {
            Issue.record("garbage is not a notice")
            return
        }
        let hello = Self.emberHello
        let middle = hello.index(hello.startIndex, offsetBy: 20)
        #expect(session.receive(frame: "2").isEmpty)
        #expect(session.receive(frame: String(hello[..<middle])).isEmpty)
        #expect(session.receive(frame: String(hello[middle...])) == [.message(.handshake(serverTime: 1_700_000_000_000))])
    }
}

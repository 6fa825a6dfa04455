import EmberCore
import EmberWire
import Testing

/// The realtime protocol v5 as Firebase's SDKs write and read it
/// (`../shared/reference/firebase-network.md` §5).
struct RealtimeCodecTests {
    private func request(_ text: String) throws -> ClientMessage {
        guard case .request(let message) = RealtimeCodec.decodeClientFrame(text) else {
            Issue.record("not a request: \(text)")
            throw CodecTestError()
        }
        return message
    }

    @Test("the Web SDK's requests decode to the server's messages")
    func decodesRequests() throws {
        #expect(
            try request(#"{"t":"d","d":{"r":3,"a":"p","b":{"p":"/x/rw","d":{"a":1,".priority":2}}}}"#)
                == .put(requestID: 3, path: "x/rw", data: try Node(jsonText: #"{"a":1,".priority":2}"#), hash: nil))
        #expect(
            try request(#"{"t":"d","d":{"r":4,"a":"p","b":{"p":"/c","d":5,"h":"abc="}}}"#)
                == .put(requestID: 4, path: "c", data: Node(.int(5)), hash: "abc="))
        #expect(
            try request(#"{"t":"d","d":{"r":5,"a":"m","b":{"p":"/a","d":{"b/c":1,"d":null}}}}"#)
                == .merge(requestID: 5, path: "a", changes: [WireChange("b/c", Node(.int(1))), WireChange("d", .empty)]))
        #expect(try request(#"{"t":"d","d":{"r":6,"a":"n","b":{"p":"/a"}}}"#) == .unlisten(requestID: 6, query: .default(at: "a"), tag: nil))
        #expect(try request(#"{"t":"d","d":{"r":7,"a":"oc","b":{"p":"/a","d":null}}}"#) == .onDisconnectCancel(requestID: 7, path: "a"))
        #expect(try request(#"{"t":"d","d":{"r":8,"a":"unauth","b":{}}}"#) == .unauth(requestID: 8))
        #expect(
            try request(#"{"t":"d","d":{"r":9,"a":"gauth","b":{"cred":"owner","authvar":{"uid":"u"}}}}"#)
                == .adminAuth(requestID: 9, credential: "owner", override: .variable(.object([("uid", .string("u"))]))))
        #expect(
            try request(#"{"t":"d","d":{"r":10,"a":"gauth","b":{"cred":"owner","noauth":true}}}"#)
                == .adminAuth(requestID: 10, credential: "owner", override: .unauthenticated))
        #expect(try request(#"{"t":"d","d":{"r":11,"a":"g","b":{"p":"/.info/x","q":{}}}}"#) == .get(requestID: 11, query: .default(at: Path(keys: [.info, "x"]))))
    }

    @Test("a tagged listen's query object reads as the Web SDK writes it, and writes back the same")
    func queryObjects() throws {
        let text = #"{"t":"d","d":{"r":2,"a":"q","b":{"p":"/messages","q":{"l":10,"vf":"r","i":".key"},"t":1,"h":""}}}"#
        guard case .listen(2, let query, 1, "") = try request(text) else { Issue.record("not a listen"); return }
        #expect(query.params == (try QueryParams.default.orderedBy(.key).limitedToLast(10)))
        let child = try QueryParams.default.orderedBy(.child("score")).startingAt(.int(5)).endingAt(.int(9), key: "k")
        let written = child.wireObject
        #expect(written == .object([("sp", .int(5)), ("ep", .int(9)), ("en", .string("k")), ("i", .string("score"))]))
        #expect(try QueryParams(wireObject: written) == child)
        // startAfter as the Web SDK 9 writes it: startAt the value with the name [MAX_NAME].
        let after = try QueryParams(wireObject: .object([("sp", .int(5)), ("sn", .string("[MAX_NAME]")), ("i", .string("score"))]))
        #expect(after.start == .including(IndexPosition(.int(5), .max)))
        #expect(throws: DatabaseError.self) { try QueryParams(wireObject: .object([("l", .int(0))])) }
        #expect(throws: DatabaseError.self) { try QueryParams(wireObject: .object([("i", .string(".key")), ("sp", .int(5))])) }
    }

    /// The Web SDK writes endBefore and startAfter with a key's predecessor or successor
    /// (firebase-js-sdk `core/util/NextPushId.ts`): 786 characters, longer than a key may be,
    /// or `[MIN_NAME]` as the value of a key-order bound. The server refused them
    /// (`invalid_key`, `invalid_query`) and the SDK cancelled the listen.
    @Test("the bounds the Web SDK writes for endBefore and startAfter are positions, not keys to validate")
    func queryBoundsBeyondKeys() throws {
        let predecessor = "a" + String(repeating: "z", count: 785)
        let byValue = try QueryParams(wireObject: .object([("ep", .string("b")), ("en", .string(predecessor)), ("i", .string(".value"))]))
        #expect(byValue.end == .including(IndexPosition(.string("b"), .key(ChildKey(unchecked: predecessor)))))
        let byKey = try QueryParams(wireObject: .object([("ep", .string(predecessor)), ("i", .string(".key"))]))
        #expect(byKey.end == .including(IndexPosition(.string(predecessor), .max)))
        // endBefore("-2147483648") under key order: before every key.
        let beforeAll = try QueryParams(wireObject: .object([("ep", .string("[MIN_NAME]")), ("i", .string(".key"))]))
        #expect(beforeAll.end == .including(IndexPosition(nil, .min)))
        #expect(beforeAll.wireObject == .object([("ep", .string("[MIN_NAME]")), ("i", .string(".key"))]))
        let node = try Node(jsonText: #"{"-2147483648":1,"a":2,"b":3}"#)
        #expect(beforeAll.filter(node).isEmpty)
        #expect(byKey.filter(node).map(\.key.name) == ["-2147483648", "a"])
        let afterAll = try QueryParams(wireObject: .object([("sp", .string("[MAX_NAME]")), ("i", .string(".key"))]))
        #expect(afterAll.filter(node).isEmpty)
        // Called by hand, a key-order bound is still a string.
        #expect(throws: DatabaseError.self) { try QueryParams.default.orderedBy(.key).startingAt(nil) }
    }

    /// The Web SDK's endBefore("😀") sends the key's predecessor, the emoji's first UTF-16
    /// unit alone (`\uD83D`) then `z`s; the frame was refused as not JSON and the connection
    /// closed, and the SDK sent it again on every reconnection.
    @Test("a request holding an unpaired surrogate is refused by its number; the connection is not closed for it")
    func unpairedSurrogates() {
        let listen = #"{"t":"d","d":{"r":4,"a":"q","b":{"p":"/p","q":{"ep":"\ud83dzz","i":".key"},"t":1,"h":""}}}"#
        guard case .refused(4, let error) = RealtimeCodec.decodeClientFrame(listen) else {
            Issue.record("not refused by its number: \(RealtimeCodec.decodeClientFrame(listen))")
            return
        }
        #expect(error.code == ErrorCode.invalidQuery)
        let put = #"{"t":"d","d":{"r":5,"a":"p","b":{"p":"/p","d":"a\udc00b"}}}"#
        guard case .refused(5, let putError) = RealtimeCodec.decodeClientFrame(put) else {
            Issue.record("the put is not refused by its number")
            return
        }
        #expect(putError.code == ErrorCode.invalidValue)
        // Without a request number to answer, the frame still closes the connection.
        guard case .refused(nil, _) = RealtimeCodec.decodeClientFrame(#"{"t":"d","d":{"a":"q","x":"\ud83d"}}"#) else {
            Issue.record("a frame without a number")
            return
        }
    }

    @Test("stats, App Check, pings and keep-alives need no server; bad frames are refused with their request number")
    func controlAndRefusals() {
        guard case .acknowledgeOnly(1) = RealtimeCodec.decodeClientFrame(#"{"t":"d","d":{"r":1,"a":"s","b":{"c":{"sdk.js.9-8-1":1}}}}"#) else {
            Issue.record("stats")
            return
        }
        guard case .ping = RealtimeCodec.decodeClientFrame(#"{"t":"c","d":{"t":"p","d":{}}}"#) else { Issue.record("ping"); return }
        guard case .ignored = RealtimeCodec.decodeClientFrame("0") else { Issue.record("keep-alive"); return }
        guard case .refused(5?, _) = RealtimeCodec.decodeClientFrame(#"{"t":"d","d":{"r":5,"a":"zz","b":{}}}"#) else {
            Issue.record("an unknown action")
            return
        }
        guard case .refused(6?, let error) = RealtimeCodec.decodeClientFrame(#"{"t":"d","d":{"r":6,"a":"p","b":{"p":"/a","d":{"a.b":1}}}}"#) else {
            Issue.record("a bad key")
            return
        }
        #expect(error.code == ErrorCode.invalidKey)
        guard case .refused(nil, _) = RealtimeCodec.decodeClientFrame("{not json") else { Issue.record("not JSON"); return }
        guard case .refused(nil, _) = RealtimeCodec.decodeClientFrame(#"{"t":"d","d":{"a":"p"}}"#) else { Issue.record("no number"); return }
    }

    @Test("server messages in Firebase's shapes: data before ok, {} for a listen's ok, Permission denied, pushes without a leading slash")
    func encodesMessages() {
        #expect(RealtimeCodec.encode(.ack(requestID: 2, status: .ok(.listening))) == #"{"t":"d","d":{"r":2,"b":{"s":"ok","d":{}}}}"#)
        #expect(RealtimeCodec.encode(.ack(requestID: 3, status: .ok())) == #"{"t":"d","d":{"r":3,"b":{"s":"ok","d":""}}}"#)
        #expect(
            RealtimeCodec.encode(.ack(requestID: 5, status: .ok(.signedIn(auth: .object([("uid", .string("bob"))]), expires: 1_900_000_000))))
                == #"{"t":"d","d":{"r":5,"b":{"s":"ok","d":{"auth":{"uid":"bob"},"expires":1900000000}}}}"#)
        #expect(
            RealtimeCodec.encode(.ack(requestID: 6, status: .ok(.signedIn(auth: nil, expires: nil))))
                == #"{"t":"d","d":{"r":6,"b":{"s":"ok","d":{"auth":null,"expires":null}}}}"#)
        #expect(
            RealtimeCodec.encode(.ack(requestID: 4, status: .failed(.permissionDenied(at: "a"))))
                == #"{"t":"d","d":{"r":4,"b":{"s":"permission_denied","d":"Permission denied"}}}"#)
        #expect(
            RealtimeCodec.encode(.dataUpdate(path: "x/rw", data: Node(.string("hi"), priority: .number(1)), tag: 7))
                == #"{"t":"d","d":{"a":"d","b":{"p":"x/rw","d":{".value":"hi",".priority":1},"t":7}}}"#)
        #expect(
            RealtimeCodec.encode(.mergeUpdate(path: "a", changes: [WireChange("b/c", Node(.int(1)))], tag: nil))
                == #"{"t":"d","d":{"a":"m","b":{"p":"a","d":{"b/c":1}}}}"#)
        #expect(
            RealtimeCodec.encode(.getResult(requestID: 5, result: .data(.empty))) == #"{"t":"d","d":{"r":5,"b":{"s":"ok","d":null}}}"#)
        #expect(
            RealtimeCodec.encode(.listenRevoked(query: .default(at: "a"), tag: nil, error: .permissionDenied()))
                == #"{"t":"d","d":{"a":"c","b":{"p":"a"}}}"#)
        #expect(
            RealtimeCodec.hello(serverTime: 1_700_000_000_000, host: "localhost:9000", session: "s1", ember: false)
                == #"{"t":"c","d":{"t":"h","d":{"ts":1700000000000,"v":"5","h":"localhost:9000","s":"s1"}}}"#)
    }

    @Test("long messages go out as a count and parts of 16,384 characters, and come back together")
    func splitsAndAssembles() {
        let long = String(repeating: "é", count: 40_000)
        let frames = RealtimeCodec.frames(long)
        #expect(frames.first == "3")
        #expect(frames.dropFirst().allSatisfy { $0.utf16.count <= RealtimeCodec.maxFrameSize })
        var assembler = FrameAssembler(maxMessageSize: 1 << 20)
        var outcomes: [FrameAssembler.Outcome] = []
        for frame in frames { outcomes.append(assembler.take(frame)) }
        #expect(outcomes.last == .message(long))
        #expect(outcomes.dropLast().allSatisfy { $0 == .incomplete })
        #expect(RealtimeCodec.frames("short") == ["short"])
        var small = FrameAssembler(maxMessageSize: 10)
        #expect(small.take("2") == .incomplete)
        #expect(small.take("123456") == .incomplete)
        #expect(small.take("789012") == .tooLarge)
        #expect(small.take("{}") == .message("{}"))
    }
}

private struct CodecTestError: Error {}

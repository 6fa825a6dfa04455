import EmberWire
import Testing

/// The key a write is sent with: structured in the process, text on the wire and in a client's
/// stored queue, read back the same.
@Suite("SentWriteKey")
struct SentWriteKeyTests {
    @Test("Ember's key reads as its writer and number, and writes back as the same text")
    func keyed() {
        let key = SentWriteKey(text: "k2x9.3fa1#17")
        #expect(key == .keyed(WriteKey(writer: "k2x9.3fa1", sequence: 17)))
        #expect(key.description == "k2x9.3fa1#17")
        #expect(SentWriteKey(text: key.description) == key)
    }

    @Test("text of another form stays as it is", arguments: ["s1:w1", "", "#1", "w x#1", "w#0"])
    func opaque(text: String) {
        let key = SentWriteKey(text: text)
        #expect(key == .opaque(text))
        #expect(key.description == text)
    }

    @Test("a put's and a merge's `k` arrive as the key they are")
    func decoded() {
        let put = #"{"t":"d","d":{"r":3,"a":"p","b":{"p":"/a","d":1,"k":"w.s#4"}}}"#
        guard case .request(.put(3, _, _, _, let putKey)) = RealtimeCodec.decodeClientFrame(put) else {
            Issue.record("not a put: \(RealtimeCodec.decodeClientFrame(put))")
            return
        }
        #expect(putKey == .keyed(WriteKey(writer: "w.s", sequence: 4)))
        let merge = #"{"t":"d","d":{"r":4,"a":"m","b":{"p":"/a","d":{"b":1},"k":"old-key"}}}"#
        guard case .request(.merge(4, _, _, let mergeKey)) = RealtimeCodec.decodeClientFrame(merge) else {
            Issue.record("not a merge: \(RealtimeCodec.decodeClientFrame(merge))")
            return
        }
        #expect(mergeKey == .opaque("old-key"))
    }
}

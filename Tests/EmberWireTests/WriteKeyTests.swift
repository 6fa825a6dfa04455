import EmberWire
import Testing

/// A write's key in its text form (`WRITER#NUMBER`), made for every write sent and read back by
/// the server for every write answered.
@Suite("WriteKey")
struct WriteKeyTests {
    @Test(
        "the text form is WRITER#NUMBER and reads back as the same key",
        arguments: [
            ("k2x9.3fa1", Int64(1)), ("w", 9), ("w", 10), ("a.b.c", 1_234_567_890),
            ("abcdefghijklmnopqrstuvwxyz0123456789.ABCDEFGHIJ", Int64.max), ("Z9", 100),
        ])
    func roundTrip(writer: String, sequence: Int64) throws {
        let key = WriteKey(writer: writer, sequence: sequence)
        #expect(key.description == writer + "#" + String(sequence))
        let parsed = try #require(WriteKey(parsing: key.description))
        #expect(parsed == key)
    }

    @Test("a number that no client makes (zero, negative) is still written out in full, and is not read back as a key")
    func numbersOutsideTheSequence() {
        #expect(WriteKey(writer: "w", sequence: 0).description == "w#0")
        #expect(WriteKey(writer: "w", sequence: -42).description == "w#-42")
        #expect(WriteKey(writer: "w", sequence: .min).description == "w#" + String(Int64.min))
        #expect(WriteKey(parsing: "w#0") == nil)
        #expect(WriteKey(parsing: "w#-42") == nil)
    }

    @Test("text of another form is not a key", arguments: ["", "#1", "w#", "w1", "w#1x", "w x#1", "w#99999999999999999999"])
    func notKeys(text: String) {
        #expect(WriteKey(parsing: text) == nil)
    }

    @Test("a key's number read in place for its writer: the parse's number, and nil for another writer or form")
    func sequenceOfWriter() {
        #expect(WriteKey.sequence(of: "k2x9.3fa1#17", by: "k2x9.3fa1") == 17)
        #expect(WriteKey.sequence(of: "k2x9.3fa1#17", by: "k2x9.3fa") == nil, "a writer whose name is a prefix")
        #expect(WriteKey.sequence(of: "k2x9.3fa1#17", by: "k2x9.3fa12") == nil)
        #expect(WriteKey.sequence(of: "other.s#17", by: "k2x9.3fa1") == nil)
        for text in ["w#", "w#0", "w#-1", "w#1x", "w#99999999999999999999", "w", "w1"] {
            #expect(WriteKey.sequence(of: text, by: "w") == nil, "\(text)")
            #expect(WriteKey.sequence(of: text, by: "w") == WriteKey(parsing: text)?.sequence)
        }
        #expect(WriteKey.sequence(of: "w#9223372036854775807", by: "w") == .max)
    }
}

/// The key a client gives each write it may send more than once: the writer that made it (one
/// client's session) and the write's number there, counting up from 1.
///
/// The server keeps, for each writer, the highest number it has answered (its watermark) and
/// the refusals above the lowest number the client may still send again (its floor). A write
/// numbered at or below the watermark was answered already: it gets its first answer again
/// instead of a second application. This holds for any number of writes in between, because a
/// client sends a writer's writes in increasing order on every connection (``ClientMessage``'s
/// `resume` comes first and says what it may still resend).
///
/// Text form: `WRITER#NUMBER`, e.g. `k2x9.3fa1#17`. Keys of another form (written by an
/// earlier version of Ember and still queued) are accepted as opaque strings.
public struct WriteKey: Sendable, Hashable, CustomStringConvertible {
    /// The writer: a client's identity and session, `[A-Za-z0-9.]` only.
    public let writer: String
    /// The write's number in its writer's sequence (1, 2, 3, ...).
    public let sequence: Int64

    /// A key for write `sequence` of `writer`.
    public init(writer: String, sequence: Int64) {
        self.writer = writer
        self.sequence = sequence
    }

    /// Reads a key's text form; `nil` for anything else (an older, opaque key).
    public init?(parsing text: String) {
        guard let mark = text.lastIndex(of: "#") else { return nil }
        let writer = text[..<mark]
        guard !writer.isEmpty, writer.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }),
            let sequence = Int64(text[text.index(after: mark)...]), sequence > 0
        else { return nil }
        self.writer = String(writer)
        self.sequence = sequence
    }

    /// `WRITER#NUMBER`.
    public var description: String { "\(writer)#\(sequence)" }
}

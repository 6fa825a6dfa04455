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
    /// - Complexity: O(n) in the length of the text, byte by byte (it runs for every write
    ///   sent or answered).
    public init?(parsing text: String) {
        // Read in place (a copy of the bytes into an array cost each parse an allocation:
        // half of what forgetting a tick's answered saves cost a durable write).
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self.writer = parsed.writer
        self.sequence = parsed.sequence
    }

    /// The number of `text` when it is a key of `writer` (`WRITER#NUMBER`), else `nil`: read
    /// in place, without making the writer's string (a client asks it of every save of its
    /// own writer that waits for a commit, about 900 instructions a write as a parse).
    /// - Complexity: O(n) in the length of the text.
    public static func sequence(of text: String, by writer: String) -> Int64? {
        var text = text
        var writer = writer
        return text.withUTF8 { bytes in
            writer.withUTF8 { name -> Int64? in
                guard bytes.count > name.count + 1, bytes[name.count] == UInt8(ascii: "#"),
                    bytes[..<name.count].elementsEqual(name)
                else { return nil }
                return number(UnsafeBufferPointer(rebasing: bytes[(name.count + 1)...]))
            }
        }
    }

    /// The positive number `digits` spell in decimal, or `nil`.
    private static func number(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var sequence: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflow) = sequence.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            if overflow || overflow2 { return nil }
            sequence = next
        }
        return sequence > 0 ? sequence : nil
    }

    /// The writer and sequence number of `bytes`, a key's text form.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (writer: String, sequence: Int64)? {
        guard let mark = bytes.lastIndex(of: UInt8(ascii: "#")), mark > 0, mark + 1 < bytes.count else { return nil }
        for byte in bytes[..<mark] {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."):
                continue
            default:
                return nil
            }
        }
        guard let sequence = number(UnsafeBufferPointer(rebasing: bytes[(mark + 1)...])) else { return nil }
        return (String(decoding: UnsafeBufferPointer(rebasing: bytes[..<mark]), as: UTF8.self), sequence)
    }

    /// `WRITER#NUMBER`.
    /// - Complexity: O(n) in the length of the text. Written into one buffer of the final
    ///   size: every write sent makes one (interpolation cost a write about 1,200 instructions,
    ///   appending the parts about 1,000, callgrind).
    public var description: String {
        // No client numbers a write below 1; such a key is written out all the same.
        guard sequence >= 0 else { return "\(writer)#\(sequence)" }
        var digits = 1
        var rest = sequence / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var writer = writer
        return writer.withUTF8 { writerBytes in
            let count = writerBytes.count + 1 + digits
            return String(unsafeUninitializedCapacity: count) { text in
                _ = UnsafeMutableRawBufferPointer(text).copyBytes(from: UnsafeRawBufferPointer(writerBytes))
                text[writerBytes.count] = UInt8(ascii: "#")
                var value = sequence
                for position in stride(from: count - 1, to: writerBytes.count, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                return count
            }
        }
    }
}

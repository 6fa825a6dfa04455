/// The key a write is sent with (``ClientMessage``'s `put` and `merge`): Ember's own
/// (``WriteKey``, its writer and number), or a key of another form, written by an earlier
/// version of Ember and still queued, kept as its text.
///
/// In a process the key travels as it is: a client's write was given a text only for the server
/// in the same process to read it back (writing and parsing the text cost about 1,300
/// instructions of every write, callgrind). The text form is made where it leaves the process
/// (the realtime protocol's `k`, a client's stored queue) and read where it comes in.
public enum SentWriteKey: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringInterpolation {
    /// Ember's key: the writer and the write's number.
    case keyed(WriteKey)
    /// Text of another form, compared as it is.
    case opaque(String)

    /// The key that `text` is: ``keyed(_:)`` when it reads as a ``WriteKey``, else ``opaque(_:)``.
    /// - Complexity: O(n) in the length of the text.
    public init(text: String) {
        if let key = WriteKey(parsing: text) {
            self = .keyed(key)
        } else {
            self = .opaque(text)
        }
    }

    /// The key that `value` is (``init(text:)``).
    public init(stringLiteral value: String) {
        self.init(text: value)
    }

    /// The text form: `WRITER#NUMBER`, or the opaque text.
    /// - Complexity: O(n) in the length of the text.
    public var description: String {
        switch self {
        case .keyed(let key): key.description
        case .opaque(let text): text
        }
    }
}

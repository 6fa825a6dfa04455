/// Reads a JSON document in Firebase's export format a piece at a time, in bounded memory, so
/// that an import of a gigabyte never holds the whole tree.
///
/// The document's large objects (the "spine": `/users` of 100,000 children) are read key by
/// key; every value whose text is small (``subtreeBytes``) is parsed whole by the one parser
/// every write uses (`Node(jsonText:at:)`, then `validate(at:)`), so that numbers, strings,
/// arrays, `.value` and `.priority` below the spine mean exactly what they mean in a write. On
/// the spine itself:
///
/// - a child's name is checked as a key; an array is an object keyed by index;
/// - `.priority` is the object's priority, delivered after its children (an object left empty
///   has none);
/// - a name that repeats an earlier one replaces it, as in `JSON.parse` (the last wins): while
///   names arrive in increasing key order (an export's order) none can repeat; after the first
///   that does not, each child is preceded by ``Piece/clear(_:)`` of its location;
/// - `.value` makes the object a leaf (it may have a `.priority`, no children);
/// - a server value (`.sv`) is not read here (``Unsupported``): such a document is imported
///   whole, as one write, so that the server resolves it.
///
/// The bytes come from a ``Source`` (a file, read by offset), so that this type does no I/O.
public struct ExportReader {
    /// Where the bytes come from.
    public protocol Source {
        /// The document's size in bytes.
        var byteCount: Int { get }
        /// Up to `count` bytes from `offset` (fewer only at the end).
        func bytes(at offset: Int, count: Int) throws(DatabaseError) -> [UInt8]
    }

    /// What the reader delivers, in document order.
    public enum Piece {
        /// The data at and below the location goes: a name repeated, the last one wins.
        case clear(Path)
        /// The data at a location (its rows), parsed and validated; may be empty.
        case subtree(Path, Node)
        /// The priority of the object at the location, which has children.
        case priority(Path, Priority)
    }

    /// A document this reader does not import piece by piece (a server value): import it whole
    /// instead.
    public struct Unsupported: Error, Sendable {
        public let reason: String
    }

    /// By default, values whose text is at most this many bytes are parsed whole (256 KiB).
    public static let subtreeBytes = 256 << 10
    private static let chunkBytes = 1 << 20

    private let source: any Source
    /// Values whose text is at most this many bytes are parsed whole.
    private let subtreeBytes: Int
    private var buffer: [UInt8] = []
    /// The document offset of `buffer[0]`.
    private var bufferStart = 0
    /// The document offset of the next byte to read.
    private(set) public var offset = 0

    /// A reader of `source` that parses values of at most `subtreeBytes` bytes whole.
    public init(_ source: any Source, subtreeBytes: Int = ExportReader.subtreeBytes) {
        self.source = source
        self.subtreeBytes = subtreeBytes
    }

    /// The document's size in bytes.
    public var byteCount: Int { source.byteCount }

    /// Reads the whole document as the value at `path`, calling `deliver` with each piece.
    /// - Returns: whether the value holds any data.
    /// - Throws: `DatabaseError` for text that is not JSON or data a write would refuse (naming
    ///   the location, or the byte offset for bad JSON), ``Unsupported`` (as a `DatabaseError`
    ///   is not), or whatever `deliver` throws.
    /// `deliver` gets each piece with how far into the document it reaches (for progress).
    @discardableResult
    public mutating func read(at path: Path, _ deliver: (Piece, _ offset: Int) throws -> Void) throws -> Bool {
        let nonEmpty = try value(at: path, deliver)
        skipSpace()
        guard try peek() == nil else { throw syntax("text after the end of the document") }
        return nonEmpty
    }

    // MARK: The spine

    private mutating func value(at path: Path, _ deliver: (Piece, Int) throws -> Void) throws -> Bool {
        skipSpace()
        let start = offset
        guard let first = try peek() else { throw syntax("the document ends where a value was expected") }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            if let end = try extent(from: start, limit: subtreeBytes) {
                return try parseWhole(start..<end, at: path, deliver)
            }
            return first == UInt8(ascii: "{") ? try object(at: path, deliver) : try array(at: path, deliver)
        }
        guard let end = try extent(from: start, limit: nil) else { throw syntax("a value is cut short") }
        return try parseWhole(start..<end, at: path, deliver)
    }

    private mutating func parseWhole(_ range: Range<Int>, at path: Path, _ deliver: (Piece, Int) throws -> Void) throws -> Bool {
        let bytes = try slice(range)
        offset = range.upperBound
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw DatabaseError.invalidValue("the text between bytes \(range.lowerBound) and \(range.upperBound) is not UTF-8", at: path)
        }
        let node: Node
        do throws(DatabaseError) {
            node = try Node(jsonText: text, at: path)
        } catch {
            // The parser's line and column are the value's, not the document's.
            guard error.path == nil else { throw error }
            throw DatabaseError.invalidValue("not JSON at byte \(range.lowerBound) or after: \(error.message)", at: path)
        }
        if node.containsServerValues { throw Unsupported(reason: "a server value at \(path)") }
        try node.validate(at: path)
        try deliver(.subtree(path, node), offset)
        return !node.isEmpty
    }

    private mutating func object(at path: Path, _ deliver: (Piece, Int) throws -> Void) throws -> Bool {
        try expect(UInt8(ascii: "{"))
        var priority: Priority?
        var leaf: Node?
        var last: ChildKey?
        // After the first name out of order: the children that hold data, by name.
        var unordered: [ChildKey: Bool]?
        var orderedNonEmpty = false
        skipSpace()
        if try peek() == UInt8(ascii: "}") {
            offset += 1
            return false
        }
        while true {
            skipSpace()
            let name = try string(at: path)
            skipSpace()
            try expect(UInt8(ascii: ":"))
            switch name {
            case ".priority":
                priority = try Node.priority(json: try member("a priority"), at: path)
                if case .deferred = priority { throw Unsupported(reason: "a server value as the priority of \(path)") }
            case ".value":
                // A leaf written as an object (`{".value": 1, ".priority": 2}`): no children.
                let node = try Node(json: .object([(".value", try member("a value"))]), at: path)
                if node.containsServerValues { throw Unsupported(reason: "a server value at \(path)") }
                try node.validate(at: path)
                if !node.isEmpty {
                    guard last == nil else { throw Self.valueBesideChildren(at: path) }
                    leaf = node
                }
            case ".sv":
                throw Unsupported(reason: "a server value at \(path)")
            default:
                let key: ChildKey
                do {
                    key = try ChildKey(validating: name)
                } catch {
                    throw error.at(path)
                }
                if leaf != nil { throw Self.valueBesideChildren(at: path) }
                if unordered == nil, let last, !(last < key) { unordered = [:] }
                last = key
                let child = path.child(key)
                if unordered != nil { try deliver(.clear(child), offset) }
                let holdsData = try value(at: child, deliver)
                if unordered != nil {
                    unordered![key] = holdsData
                } else if holdsData {
                    orderedNonEmpty = true
                }
            }
            skipSpace()
            guard let next = try take() else { throw syntax("the object at \(path) is not closed") }
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw syntax("expected , or } in the object at \(path)") }
        }
        if let leaf {
            try deliver(.subtree(path, leaf.withPriority(priority)), offset)
            return true
        }
        // An earlier child that a later one with its name replaced counts as the later one.
        let nonEmpty = orderedNonEmpty || (unordered?.values.contains(true) ?? false)
        if nonEmpty, let priority { try deliver(.priority(path, priority), offset) }
        return nonEmpty
    }

    /// A member's value read whole and parsed (`.priority`, `.value`: small by their nature).
    private mutating func member(_ what: String) throws -> JSONValue {
        skipSpace()
        guard let end = try extent(from: offset, limit: nil) else { throw syntax("\(what) is cut short") }
        let bytes = try slice(offset..<end)
        offset = end
        return try JSONParser.parse(String(decoding: bytes, as: UTF8.self))
    }

    /// What `Node(json:)` says of `{".value": 1, "a": 2}`.
    private static func valueBesideChildren(at path: Path) -> DatabaseError {
        .invalidValue("an object with \".value\" must have no other children", at: path)
    }

    private mutating func array(at path: Path, _ deliver: (Piece, Int) throws -> Void) throws -> Bool {
        try expect(UInt8(ascii: "["))
        var nonEmpty = false
        var index: Int32 = 0
        skipSpace()
        if try peek() == UInt8(ascii: "]") {
            offset += 1
            return false
        }
        while true {
            if try value(at: path.child(ChildKey(index)), deliver) { nonEmpty = true }
            index += 1
            skipSpace()
            guard let next = try take() else { throw syntax("the array at \(path) is not closed") }
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else { throw syntax("expected , or ] in the array at \(path)") }
        }
        return nonEmpty
    }

    /// A string token (a member's name), decoded.
    private mutating func string(at path: Path) throws -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw syntax("expected a member name in the object at \(path)") }
        guard let end = try extent(from: offset, limit: nil) else { throw syntax("a member name is cut short") }
        let bytes = try slice(offset..<end)
        offset = end
        guard let text = String(validating: bytes, as: UTF8.self), case .string(let name) = try JSONParser.parse(text) else {
            throw syntax("a member name that is not a UTF-8 string")
        }
        return name
    }

    // MARK: Bytes

    /// The end of the value starting at `start` (a string, a number, a literal, an object or an
    /// array), or `nil` when it is an object or array longer than `limit` bytes.
    private mutating func extent(from start: Int, limit: Int?) throws -> Int? {
        var position = start
        var depth = 0
        var inString = false
        var escaped = false
        while true {
            if let limit, position - start > limit, depth > 0 { return nil }
            guard let byte = try byte(at: position) else {
                // A number or literal may end the document.
                if !inString && depth == 0 && position > start { return position }
                throw syntax(inString ? "a string is not closed" : "the document ends inside a value")
            }
            position += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return position }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // The end of a number or literal inside an object or array.
                if depth == 0 { return position - 1 }
                depth -= 1
                if depth == 0 { return position }
            case UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                // The end of a number or literal.
                if depth == 0 { return position - 1 }
            default:
                break
            }
        }
    }

    private mutating func byte(at position: Int) throws -> UInt8? {
        if position < bufferStart { try refill(from: position) }
        if position >= bufferStart + buffer.count {
            guard position < source.byteCount else { return nil }
            try refill(from: position)
        }
        let index = position - bufferStart
        return index < buffer.count ? buffer[index] : nil
    }

    /// Loads the chunk at `position`, keeping what is buffered from `offset` on (a value being
    /// scanned starts there) so that it can be sliced without reading it again.
    private mutating func refill(from position: Int) throws {
        if position >= offset, offset >= bufferStart, offset <= bufferStart + buffer.count, position == bufferStart + buffer.count {
            buffer.removeFirst(offset - bufferStart)
            bufferStart = offset
            buffer += try source.bytes(at: position, count: Self.chunkBytes)
        } else {
            buffer = try source.bytes(at: position, count: Self.chunkBytes)
            bufferStart = position
        }
    }

    private mutating func slice(_ range: Range<Int>) throws -> [UInt8] {
        if range.lowerBound >= bufferStart, range.upperBound <= bufferStart + buffer.count {
            return Array(buffer[(range.lowerBound - bufferStart)..<(range.upperBound - bufferStart)])
        }
        return try source.bytes(at: range.lowerBound, count: range.count)
    }

    private mutating func peek() throws -> UInt8? { try byte(at: offset) }

    private mutating func take() throws -> UInt8? {
        let byte = try byte(at: offset)
        if byte != nil { offset += 1 }
        return byte
    }

    private mutating func expect(_ expected: UInt8) throws {
        guard try take() == expected else { throw syntax("expected \(Character(UnicodeScalar(expected)))", at: offset - 1) }
    }

    private mutating func skipSpace() {
        while let byte = try? byte(at: offset),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
        {
            offset += 1
        }
    }

    private func syntax(_ reason: String, at position: Int? = nil) -> DatabaseError {
        .invalidValue("not JSON at byte \(position ?? offset): \(reason)")
    }
}

/// One RESP2 reply from a Redis server.
enum RESPValue: Sendable, Equatable {
    /// `+OK`
    case simpleString(String)
    /// `-ERR ...`: the server refused a command.
    case error(String)
    /// `:42`
    case integer(Int)
    /// `$3 foo`: binary-safe bytes.
    case bulkString([UInt8])
    /// `$-1`: the nil bulk string (GET of a missing key).
    case null
    /// `*2 ...`
    case array([RESPValue])
    /// `*-1`: the nil array (EXEC of an aborted transaction).
    case nullArray

    /// The text of a simple or bulk string (bulk bytes decoded as UTF-8), else `nil`.
    var string: String? {
        switch self {
        case .simpleString(let text): text
        case .bulkString(let bytes): String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    /// A short description for error messages: `+OK`, `:3`, `$"12"`, `*20`, `(nil)`.
    var summary: String {
        switch self {
        case .simpleString(let text): "+\(text)"
        case .error(let message): "-\(message)"
        case .integer(let value): ":\(value)"
        case .bulkString(let bytes): "$\"\(String(decoding: bytes.prefix(40), as: UTF8.self))\""
        case .null: "(nil)"
        case .array(let elements): "*\(elements.count)"
        case .nullArray: "(nil array)"
        }
    }

    /// Parses one complete reply at the start of `bytes`: the reply and how many bytes it took,
    /// or `nil` when `bytes` does not hold a whole reply yet.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(RedisError) -> (value: RESPValue, length: Int)? {
        var position = 0
        guard let value = try parse(bytes, at: &position) else { return nil }
        return (value, position)
    }

    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// Parses the reply at `position`, moving it past the reply; `nil` (position unspecified)
    /// when the reply is incomplete.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int) throws(RedisError) -> RESPValue? {
        guard position < bytes.count else { return nil }
        let type = bytes[position]
        position += 1
        guard let line = line(bytes, at: &position) else { return nil }
        switch type {
        case UInt8(ascii: "+"):
            return .simpleString(String(decoding: UnsafeBufferPointer(rebasing: bytes[line]), as: UTF8.self))
        case UInt8(ascii: "-"):
            return .error(String(decoding: UnsafeBufferPointer(rebasing: bytes[line]), as: UTF8.self))
        case UInt8(ascii: ":"):
            return .integer(try integer(bytes, line))
        case UInt8(ascii: "$"):
            let length = try integer(bytes, line)
            if length < 0 { return .null }
            guard bytes.count - position >= length + 2 else { return nil }
            let body = Array(bytes[position..<(position + length)])
            guard bytes[position + length] == cr, bytes[position + length + 1] == lf else {
                throw .protocolViolation("bulk string of \(length) bytes not followed by CRLF")
            }
            position += length + 2
            return .bulkString(body)
        case UInt8(ascii: "*"):
            let count = try integer(bytes, line)
            if count < 0 { return .nullArray }
            var elements: [RESPValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                guard let element = try parse(bytes, at: &position) else { return nil }
                elements.append(element)
            }
            return .array(elements)
        default:
            throw .protocolViolation("unknown reply type byte \(type)")
        }
    }

    /// The range of the line at `position` (without its CRLF), moving past the CRLF; `nil`
    /// when the CRLF has not arrived.
    private static func line(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int) -> Range<Int>? {
        var index = position
        while index + 1 < bytes.count {
            if bytes[index] == cr && bytes[index + 1] == lf {
                let range = position..<index
                position = index + 2
                return range
            }
            index += 1
        }
        return nil
    }

    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(RedisError) -> Int {
        var value = 0
        var negative = false
        var index = range.lowerBound
        if index < range.upperBound && bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < range.upperBound else { throw .protocolViolation("empty integer") }
        while index < range.upperBound {
            let digit = bytes[index]
            guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else {
                throw .protocolViolation("bad integer byte \(digit)")
            }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
            index += 1
        }
        return negative ? -value : value
    }
}

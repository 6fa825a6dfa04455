/// JSON written as Swift literals: `["name": "stego", "height": 4, "tags": ["a", "b"], "gone": nil]`.
///
/// Dictionary literals keep the order they were written in, as the parser does.
extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(elements.map { (key: $0.0, value: $0.1) })
    }

    /// The server's time when the write reaches it (`{".sv": "timestamp"}`).
    public static let serverTimestamp: JSONValue = [".sv": "timestamp"]

    /// Adds `amount` to the number at the location when the write reaches the server
    /// (`{".sv": {"increment": amount}}`).
    public static func increment(_ amount: Int64) -> JSONValue { [".sv": ["increment": .int(amount)]] }
}

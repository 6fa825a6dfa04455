import EmberCore
import Foundation

/// A value during the evaluation of a rule.
///
/// Two strings are equal when their code units are (compared as UTF-8 bytes, which are equal
/// exactly when the UTF-16 units are), never by Unicode canonical equivalence as Swift's `==`
/// does: `"\u{212A}ate"` (KELVIN SIGN) is not `"Kate"`. Firebase compares JavaScript and Java
/// strings by code unit, as the Web SDK's own `===` and `<` do (firebase-js-sdk
/// `packages/database/src/core/util/util.ts`, `stringCompare` and `nameCompare`).
public enum RuleValue: Sendable, Equatable {
    case null
    case boolean(Bool)
    case number(Double)
    case string(String)
    /// An object: a part of `auth`, or the `val()` of a location with children (opaque: it
    /// compares equal to nothing but itself).
    case object(JSONValue)
    case snapshot(RuleSnapshot)
    indirect case query(RuleQuery)

    public static func == (lhs: RuleValue, rhs: RuleValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.boolean(let a), .boolean(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): StringOrder.bytesEqual(a, b)
        case (.object(let a), .object(let b)): a == b
        case (.snapshot(let a), .snapshot(let b)): a == b
        case (.query(let a), .query(let b)): a == b
        default: false
        }
    }

    /// `json` as a rule value: objects and arrays stay whole.
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .boolean(value)
        case .int(let value): self = .number(Double(value))
        case .double(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array, .object: self = .object(json)
        }
    }

    /// `leaf` as a rule value (a server value not resolved yet: null).
    init(_ leaf: LeafValue?) {
        switch leaf {
        case .bool(let value)?: self = .boolean(value)
        case .int(let value)?: self = .number(Double(value))
        case .double(let value)?: self = .number(value)
        case .string(let value)?: self = .string(value)
        case .deferred?, nil: self = .null
        }
    }

    /// The value as the rules print it (`explain`): JSON for primitives.
    public var description: String {
        switch self {
        case .null: "null"
        case .boolean(let value): value ? "true" : "false"
        case .number(let value): Self.format(value)
        case .string(let value): JSONValue.string(value).serialized()
        case .object(let json): json.serialized()
        case .snapshot(let snapshot): "snapshot of \(snapshot.path)"
        case .query: "query"
        }
    }

    /// What kind of value it is, for errors.
    var kind: String {
        switch self {
        case .null: "null"
        case .boolean: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .object: "an object"
        case .snapshot: "a snapshot"
        case .query: "query"
        }
    }

    /// A number as JavaScript turns it into a string (`1`, `0.5`, `1e-7`, `NaN`, `Infinity`).
    static func format(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        if number == number.rounded(), abs(number) < 1e21 {
            return number == 0 ? "0" : String(format: "%.0f", number)
        }
        var text = "\(number)"
        // Swift writes 1e-07 where JavaScript writes 1e-7.
        if let e = text.firstIndex(of: "e") {
            let mantissa = text[..<e]
            var exponent = text[text.index(after: e)...]
            var sign = ""
            if let first = exponent.first, first == "-" || first == "+" {
                sign = String(first)
                exponent = exponent.dropFirst()
            }
            while exponent.count > 1, exponent.first == "0" { exponent = exponent.dropFirst() }
            text = mantissa + "e" + (sign.isEmpty ? "+" : sign) + exponent
        }
        return text
    }
}

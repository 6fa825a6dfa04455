/// The priority of a node: a number or a string.
///
/// Any non-empty node may carry one. In priority order, children without a priority come
/// first, then numeric priorities ascending, then string priorities in UTF-16 order, with ties
/// broken by key.
public enum Priority: Sendable, Hashable {
    case number(Double)
    case string(String)
    /// A server value (`{".sv": "timestamp"}`), as a write carries it until the server (or the
    /// client, for its optimistic view) resolves it: Firebase accepts one as a priority
    /// (validation.ts `isValidPriority`; resolved by `resolveDeferredValueSnapshot`). Stored
    /// and served data never holds one.
    case deferred(ServerValue)

    /// The priority a leaf value stands for, or `nil` when the value cannot be a priority.
    public init?(_ value: LeafValue) {
        switch value {
        case .int(let number): self = .number(Double(number))
        case .double(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .deferred(let value): self = .deferred(value)
        case .bool: return nil
        }
    }

    /// The priority as a leaf value (numbers in normal form).
    public var leafValue: LeafValue {
        switch self {
        case .number(let number): LeafValue(normalizing: number) ?? .double(number)
        case .string(let text): .string(text)
        case .deferred(let value): .deferred(value)
        }
    }

    /// Three-way comparison of optional priorities: none < numbers < strings (an unresolved
    /// server value, which only a write in flight holds, sorts last).
    public static func compare(_ lhs: Priority?, _ rhs: Priority?) -> Int {
        switch (lhs, rhs) {
        case (nil, nil): return 0
        case (nil, _): return -1
        case (_, nil): return 1
        case (.number(let a)?, .number(let b)?): return a < b ? -1 : (a == b ? 0 : 1)
        case (.number?, .string?): return -1
        case (.string?, .number?): return 1
        case (.string(let a)?, .string(let b)?): return StringOrder.compareUTF16(a, b)
        case (.deferred?, .deferred?): return 0
        case (.deferred?, _): return 1
        case (_, .deferred?): return -1
        }
    }
}

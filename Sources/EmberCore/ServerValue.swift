/// A placeholder the server replaces with a value it computes when it applies the write.
///
/// Written in JSON as `{".sv": "timestamp"}` (the server's time in milliseconds since the epoch)
/// or `{".sv": {"increment": n}}` (the current number plus `n`; a missing or non-numeric current
/// value counts as 0).
public enum ServerValue: Sendable, Hashable {
    case timestamp
    indirect case increment(LeafValue)

    /// The placeholder for an increment by `amount`.
    public static func increment(by amount: Int64) -> ServerValue { .increment(.int(amount)) }

    /// The value it stands for, given the server's time and the value currently stored at its
    /// location.
    public func resolve(serverTime: Int64, current: Node) -> LeafValue {
        switch self {
        case .timestamp:
            return .int(serverTime)
        case .increment(let delta):
            let base: LeafValue
            if let leaf = current.leafValue, leaf.doubleValue != nil {
                base = leaf
            } else {
                base = .int(0)
            }
            return Self.add(base, delta)
        }
    }

    /// Adds two numbers, staying an exact integer until the sum overflows 64 bits.
    static func add(_ a: LeafValue, _ b: LeafValue) -> LeafValue {
        if case .int(let x) = a, case .int(let y) = b {
            let (sum, overflow) = x.addingReportingOverflow(y)
            if !overflow { return .int(sum) }
        }
        let sum = (a.doubleValue ?? 0) + (b.doubleValue ?? 0)
        return LeafValue(normalizing: sum) ?? .double(sum)
    }
}

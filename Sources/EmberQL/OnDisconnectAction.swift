/// What an `ondisconnect` registers (or cancels) at its path.
public enum OnDisconnectAction: Sendable, Equatable {
    /// `set VALUE [priority P]`.
    case set(ValueExpression, priority: ValueExpression?)
    /// `update OBJECT`.
    case update(ValueExpression)
    /// `remove`.
    case remove
    /// `cancel`.
    case cancel
}

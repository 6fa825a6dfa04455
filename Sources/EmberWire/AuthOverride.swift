import EmberCore

/// Who an administrator's connection acts as for the rules (`gauth`'s `authvar` and `noauth`;
/// REST's `auth_variable_override`).
public enum AuthOverride: Sendable, Hashable {
    /// No override: an administrator, to whom the rules do not apply.
    case none
    /// The rules see `auth` as this object.
    case variable(JSONValue)
    /// The rules see `auth` as null (an unauthenticated user).
    case unauthenticated
}

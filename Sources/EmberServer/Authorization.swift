import EmberCore

/// What ``ServerAuthorizer`` decided about one operation.
enum Authorization {
    /// The rules do not apply: they are open, or the user is the administrator.
    case unchecked
    /// The rules were checked: allowed when the check refused nothing.
    case checked(RuleCheck)
    /// The rules read data the store could not give: refused, as the store's failure.
    case unreadable(DatabaseError)

    /// Why the operation is refused, or `nil` when it is allowed.
    var refusal: DatabaseError? {
        switch self {
        case .unchecked: nil
        case .checked(let check): check.refused.map(DatabaseError.permissionDenied(at:))
        case .unreadable(let error): error
        }
    }

    /// The check made, for `explain` and `rules trace` (none when unchecked or unreadable).
    var check: RuleCheck? {
        if case .checked(let check) = self { return check }
        return nil
    }
}

/// What a `rules` command does.
public enum RulesAction: Sendable, Equatable {
    /// `rules` or `rules show`: print the rules in force.
    case show
    /// `rules load FILE`: compile FILE and put it in force.
    case load(Word)
    /// `rules open`: back to the open rules (everyone may read and write).
    case open
    /// `rules trace on|off`: explain every rules check as it happens.
    case trace(Bool)
    /// `rules coverage`: each rule's evaluations and outcomes.
    case coverage
}

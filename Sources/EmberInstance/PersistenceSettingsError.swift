/// A ``PersistenceSettings`` value out of range.
public struct PersistenceSettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, with the accepted range.
    public let message: String

    public var description: String { message }
}

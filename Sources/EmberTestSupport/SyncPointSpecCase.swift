/// One case of the SyncPoint spec: a name and the steps to run in order on a fresh sync tree.
public struct SyncPointSpecCase: Sendable, Equatable, CustomStringConvertible {
    /// The case's name, unique in the file.
    public var name: String
    /// The case's `.comment`, if any.
    public var comment: String?
    /// The steps, each with the events it expects.
    public var steps: [SyncPointSpecStep]

    public init(name: String, comment: String? = nil, steps: [SyncPointSpecStep]) {
        self.name = name
        self.comment = comment
        self.steps = steps
    }

    /// How many events the case expects over all its steps.
    public var expectedEventCount: Int {
        steps.reduce(0) { $0 + $1.events.count }
    }

    public var description: String { name }
}

/// One command of the registry that `help`, completion and plugins share: its name, syntax, what
/// it does, and an example.
public struct CommandDescription: Sendable, Hashable {
    /// The name typed (`set`).
    public var name: String
    /// Other names for it (`rm` for `remove`).
    public var aliases: [String]
    /// The syntax line after the name (`PATH VALUE [priority P]`).
    public var syntax: String
    /// One sentence: what it does.
    public var summary: String
    /// An example line.
    public var example: String
    /// The section of `help` it is listed under ("Data", "Live", ...).
    public var group: String

    /// Creates a description.
    public init(name: String, aliases: [String] = [], syntax: String, summary: String, example: String, group: String) {
        self.name = name
        self.aliases = aliases
        self.syntax = syntax
        self.summary = summary
        self.example = example
        self.group = group
    }
}

/// ANSI styles for pretty output, or none at all when colour is off.
public struct TextStyle: Sendable, Hashable {
    /// Whether styles are emitted.
    public var colored: Bool

    /// Creates a style set.
    public init(colored: Bool) {
        self.colored = colored
    }

    private func paint(_ text: String, _ code: String) -> String {
        colored ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    /// Object keys.
    public func key(_ text: String) -> String { paint(text, "34") }
    /// Strings.
    public func string(_ text: String) -> String { paint(text, "32") }
    /// Numbers.
    public func number(_ text: String) -> String { paint(text, "36") }
    /// `true`, `false`, `null`.
    public func literal(_ text: String) -> String { paint(text, "35") }
    /// Secondary text: summaries, ids, hints.
    public func dim(_ text: String) -> String { paint(text, "2") }
    /// Event names and headings.
    public func bold(_ text: String) -> String { paint(text, "1") }
    /// Errors.
    public func error(_ text: String) -> String { paint(text, "31") }
    /// Success.
    public func ok(_ text: String) -> String { paint(text, "32") }
    /// Warnings: queued writes, offline.
    public func warning(_ text: String) -> String { paint(text, "33") }
}

/// An answer that arrives later through a callback (a write's acknowledgement, a `get`'s
/// data, a transaction's result): what ``Engine/wait(for:deadline:)`` waits for.
///
/// ```swift
/// let answer = Pending<DatabaseError?>()
/// try reference.set(value) { answer.fill($0) }
/// switch engine.wait(for: answer) { case .satisfied: use(answer.value!) ... }
/// ```
///
/// Confined to the engine's thread, like what fills it.
public final class Pending<Answer> {
    /// The answer, once it arrived.
    public private(set) var value: Answer?

    /// An answer not arrived yet.
    public init() {}

    /// Whether the answer arrived.
    public var isFilled: Bool { value != nil }

    /// Records the answer (the first one counts; later ones are ignored).
    public func fill(_ answer: Answer) {
        if value == nil { value = answer }
    }

    /// The callback that fills it: pass it where an operation takes its completion.
    public var filler: (Answer) -> Void { { [self] in fill($0) } }
}

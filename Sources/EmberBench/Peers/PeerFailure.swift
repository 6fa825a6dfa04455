/// Why a peer workload gave no figure: the peer is missing, unreachable, or misbehaved. Its
/// description becomes the `not measured` reason.
struct PeerFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

extension Measurement {
    /// The figure `body` measures, or `.notMeasured` with the error's description (prefixed by
    /// `context` when given) if it throws: a failing peer never stops the whole run.
    static func catching(_ context: String? = nil, _ body: () throws -> Figure) -> Measurement {
        do {
            return .measured(try body())
        } catch {
            let reason = "\(error)"
            return .notMeasured(context.map { "\($0): \(reason)" } ?? reason)
        }
    }
}

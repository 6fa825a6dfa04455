/// A figure, or why there is none: a peer that is not installed, a server that did not answer,
/// a workload that failed.
enum Measurement: Sendable {
    case measured(Figure)
    case notMeasured(String)

    /// The figure, when there is one.
    var figure: Figure? {
        if case .measured(let figure) = self { return figure }
        return nil
    }

    /// The figure with its spread, or `not measured: REASON`.
    var formatted: String {
        switch self {
        case .measured(let figure): figure.formatted
        case .notMeasured(let reason): "not measured: \(reason)"
        }
    }
}

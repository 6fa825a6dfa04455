import Testing

/// One scenario of a script in `Scenarios/`: its name there and what it shows.
struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    let what: String

    init(_ name: String, _ what: String) {
        self.name = name
        self.what = what
    }

    var testDescription: String { "\(name): \(what)" }
}

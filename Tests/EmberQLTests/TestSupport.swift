import EmberCore
import Testing

@testable import EmberQL

/// The position of `column` on line 1, or on a later line (then `offset` must be given).
func at(_ column: Int, line: Int = 1, offset: Int? = nil) -> SourcePosition {
    SourcePosition(line: line, column: column, offset: offset ?? column - 1)
}

/// The command `source` compiles to; records an issue when it is blank or fails.
func parsed(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Command {
    try #require(try CommandParser.parse(source), sourceLocation: sourceLocation)
}

/// The error `source` fails with, or `nil` (and an issue) when it compiles.
func failure(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) -> EmberQLError? {
    do {
        let command = try CommandParser.parse(source)
        Issue.record("expected an error, got \(String(describing: command))", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The query of a `get` (or `ls`/`watch`), when `source` compiles to one.
func query(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> QueryExpression {
    switch try parsed(source, sourceLocation: sourceLocation) {
    case .get(_, let query), .ls(_, let query), .watch(_, let query, _): return query
    case let other:
        Issue.record("not a query command: \(other)", sourceLocation: sourceLocation)
        return .none
    }
}

/// An error case: the input, the message, and where (line, column and underlined length).
struct ErrorCase: CustomTestStringConvertible, Sendable {
    var source: String
    var message: String
    var line: Int
    var column: Int
    var length: Int

    init(_ source: String, _ message: String, _ line: Int, _ column: Int, length: Int = 1) {
        self.source = source
        self.message = message
        self.line = line
        self.column = column
        self.length = length
    }

    var testDescription: String { source }

    /// Checks that the source fails as described.
    func check(sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = failure(source, sourceLocation: sourceLocation) else { return }
        #expect(error.message == message, sourceLocation: sourceLocation)
        #expect(error.position.line == line, "line", sourceLocation: sourceLocation)
        #expect(error.position.column == column, "column", sourceLocation: sourceLocation)
        #expect(error.length == length, "length", sourceLocation: sourceLocation)
    }
}

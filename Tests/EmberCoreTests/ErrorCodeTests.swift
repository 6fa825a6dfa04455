import EmberCore
import Foundation
import Testing

/// The codes of ``ErrorCode``: unique, stable words, each documented in docs/ERRORS.md.
@Suite struct ErrorCodeTests {
    /// docs/ERRORS.md, from this file's place in the package.
    static let errorsDocument = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/ERRORS.md")

    @Test func codesAreUniqueLowerSnakeCaseWords() {
        #expect(Set(ErrorCode.all).count == ErrorCode.all.count)
        for code in ErrorCode.all {
            #expect(code.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }, "\(code)")
        }
    }

    @Test func everyCodeHasARowInTheErrorsDocumentAndEveryRowIsACode() throws {
        let text = try String(contentsOf: Self.errorsDocument, encoding: .utf8)
        let rows = text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `") else { return nil }
            return line.dropFirst(3).prefix { $0 != "`" }.description
        }
        let documented = rows.filter { !["err.code", "err.message", "err.path"].contains($0) }
        #expect(documented == ErrorCode.all)
    }

    @Test func databaseErrorsUseTheFirebaseWireCodesWhereThereAreSome() {
        #expect(DatabaseError.permissionDenied().code == "permission_denied")
        #expect(DatabaseError.dataStale().code == "datastale")
        #expect(DatabaseError.overriddenBySet().code == ErrorCode.overriddenBySet)
        #expect(DatabaseError.maxRetries().code == ErrorCode.maxRetries)
        #expect(ErrorCode.all.contains(DatabaseError.disconnected().code))
        #expect(ErrorCode.all.contains(DatabaseError.writeCanceled().code))
        #expect(ErrorCode.all.contains(DatabaseError.invalidQuery("x").code))
        #expect(ErrorCode.all.contains(DatabaseError.invalidValue("x").code))
        #expect(ErrorCode.all.contains(DatabaseError.invalidPriority("x").code))
    }
}

import EmberCore
import Testing

@testable import EmberQL

@Test func smoke() throws {
    #expect(try CommandParser.parse("pwd") == .pwd)
}

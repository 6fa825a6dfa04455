import Foundation
@testable import EmberCore
import Testing

/// Every test vector of the reference (firebase-semantics.md §6.8).
@Suite struct NodeHashTests {
    static let vectors: [(String, String)] = [
        ("true", "E5z61QM0lN/U2WsOnusszCTkR8M="),
        ("false", "aSSNoqcS4oQwJ2xxH20rvpp3zP0="),
        ("500", "Ajg9bohDwTVmqR14o1bVJnneryM="),
        ("\"Hello World\"", "B8HWXc7zXMjrsnJxPRj7wrNGqt4="),
        ("{\"foo\":\"bar\"}", "XnLeTeWQmzTHImTbSMDLg/qMrKY="),
        ("{\"z\":1,\"a\":\"2\",\"b\":\"true\",\"c\":false}", "8qk5vmuZGXWJx+77SGwjYRM0yPA="),
        ("{\".priority\":200,\".value\":\"primitive\"}", "R9u8hs9fhRzuQ2M/3BQ0uhxz5ys="),
        ("{\".priority\":\"high\",\".value\":42}", "d/2FMFWchvDsa06RLXZhzvM9aQc="),
        ("{\".priority\":128.256,\"someKey\":\"value\"}", "WYR8kBGna+a7E5x75zvhPhzACOQ="),
        ("{\".priority\":\"high\",\"someKey\":\"value\"}", "/KquMIGoCuKO/ipoLoQzqnU0BcI="),
        ("null", ""),
        ("{}", ""),
        ("\"\"", "Ki0Xy0V6morg0TO3Sxi/jwugYDQ="),
        ("0", "7ysMph9WPitGP7poMnMHMVPtUlI="),
        ("42", "bQ5XV5L9riGZgerGMb/8Z87RxeI="),
        ("43", "AwBfKrmV5pIQje73he2PF2YHuhM="),
        ("{\"10\":\"x\",\"9\":\"y\",\"a\":\"z\"}", "zbq+Ql275FizHIY4HsJitm5G780="),
        ("{\"b\":{\".priority\":1,\".value\":\"p1\"},\"a\":\"np\"}", "zMPnyTFgDRZxxKMbaSDHzBhzWF4="),
        ("{\"0\":1,\"1\":2,\"2\":3}", "h6XOC3OcidJlNC1Velmi3gphgQk="),
        ("[1,2,3]", "h6XOC3OcidJlNC1Velmi3gphgQk="),
        ("{\"nested\":{\"x\":{\"y\":true}}}", "7kV6sTV5TgS8YEZhn2rmw3nBESo="),
    ]

    @Test(arguments: vectors.indices)
    func vector(_ index: Int) throws {
        let (json, expected) = Self.vectors[index]
        #expect(try Node(jsonText: json).hashString == expected, "\(json)")
    }

    @Test func integersAndEqualDoublesHashAlike() throws {
        #expect(try Node(jsonText: "1").hashString == Node(jsonText: "1.0").hashString)
        #expect(try Node(jsonText: "-0").hashString == Node(jsonText: "0").hashString)
    }

    @Test func hashChangesWithPriority() throws {
        let plain = try Node(jsonText: "{\"a\":1}")
        #expect(plain.hashString != plain.withPriority(.number(1)).hashString)
    }

    /// The hand-written base64 gives what Foundation gives, for every padding case.
    @Test func base64MatchesFoundation() {
        for length in 0...7 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 97 + 251) }
            let ours = bytes.withUnsafeBytes { Node.base64($0) }
            #expect(ours == Data(bytes).base64EncodedString(), "\(length) bytes")
        }
    }

    /// Numbers hash as their 16 hex digits, leading zeros kept (the leading nibble of 1.0 is 3).
    @Test func numbersHashWithSixteenDigits() throws {
        #expect(Node.hashText(of: .int(1)) == "number:3ff0000000000000")
        #expect(Node.hashText(of: .int(0)) == "number:0000000000000000")
        #expect(Node.hashText(of: .double(-2.5)) == "number:c004000000000000")
    }
}

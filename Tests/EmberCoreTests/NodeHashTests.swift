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

    /// The Web SDK's `doubleToIEEE754String` for numbers it writes wrongly and for some it
    /// writes right, as Node 20 computes them with the SDK 9.8.1 of ../shared/conformance
    /// (the exact bits beside: they differ next to a power of two).
    static let javaScriptVectors: [(Double, js: UInt64, exact: UInt64)] = [
        (9_007_199_254_740_991, 0x4340_0000_0000_0000, 0x433F_FFFF_FFFF_FFFF),
        (255.99999999999997, 0x4070_0000_0000_0000, 0x406F_FFFF_FFFF_FFFF),
        (4.450147717014403e-308, 0x0010_0000_0000_0000, 0x0020_0000_0000_0000),
        (281_474_976_710_655, 0x42FF_FFFF_FFFF_FFF0, 0x42EF_FFFF_FFFF_FFE0),
        (-4_503_599_627_370_495, 0xC33F_FFFF_FFFF_FFFF, 0xC32F_FFFF_FFFF_FFFE),
        (0.9999999999999999, 0x3FEF_FFFF_FFFF_FFFF, 0x3FEF_FFFF_FFFF_FFFF),
        (1, 0x3FF0_0000_0000_0000, 0x3FF0_0000_0000_0000),
        (1.7976931348623157e308, 0x7FEF_FFFF_FFFF_FFFF, 0x7FEF_FFFF_FFFF_FFFF),
        (5e-324, 0x0000_0000_0000_0001, 0x0000_0000_0000_0001),
        (-0.0, 0x8000_0000_0000_0000, 0x8000_0000_0000_0000),
    ]

    @Test("the Web SDK's bits of a number, wrong next to a power of two, are reproduced", arguments: javaScriptVectors.indices)
    func javaScriptBits(_ index: Int) {
        let (value, js, exact) = Self.javaScriptVectors[index]
        #expect(Node.javaScriptBits(value) == js, "\(value)")
        #expect(value.bitPattern == exact, "\(value)")
    }

    /// A value the Web SDK hashes differently has two hashes a client may send: both are its.
    @Test func aNodeHasTheWebSDKsHashToo() throws {
        let node = try Node(jsonText: #"{"big":9007199254740991,"n":1,".priority":255.99999999999997}"#)
        let webSDK = node.hashString(numbers: .javaScript)
        #expect(webSDK != node.hashString)
        #expect(node.hasHash(node.hashString))
        #expect(node.hasHash(webSDK))
        // The guard still refuses the hash of another value, either way written.
        let other = try Node(jsonText: #"{"big":9007199254740990,"n":1,".priority":255.99999999999997}"#)
        #expect(!node.hasHash(other.hashString))
        #expect(!node.hasHash(other.hashString(numbers: .javaScript)))
        // Except the one the Web SDK cannot tell from it: its text of 2^53 - 1 is 2^53's.
        #expect(node.hasHash(try Node(jsonText: #"{"big":9007199254740992,"n":1,".priority":256}"#).hashString))
        // A tree without such numbers has one hash.
        let plain = try Node(jsonText: #"{"a":1.5,"b":"x"}"#)
        #expect(!plain.containsJavaScriptMisfit)
        #expect(plain.hashString(numbers: .javaScript) == plain.hashString)
    }
}

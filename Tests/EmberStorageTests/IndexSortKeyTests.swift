import EmberCore
@testable import EmberStorage
import EmberTestSupport
import Testing

/// The store's index keys order as bytes exactly as the in-memory index orders children, and
/// give back the child's key.
@Suite("Index sort key")
struct IndexSortKeyTests {
    /// Values at every edge of Firebase's order: types, numbers an int and a double share or
    /// nearly share, strings whose UTF-8 and UTF-16 orders differ, zero bytes, prefixes.
    static let values: [IndexedValueKey.Value] = {
        var values: [IndexedValueKey.Value] = [.null, .object, .leaf(.bool(false)), .leaf(.bool(true))]
        let integers: [Int64] = [
            .min, .min + 1, -(1 << 53) - 1, -(1 << 53), -1000, -1, 0, 1, 2, 41, 42, 1 << 53, (1 << 53) + 1, (1 << 62) + 1, .max - 1, .max,
        ]
        values += integers.map { .leaf(.int($0)) }
        let doubles: [Double] = [
            -.greatestFiniteMagnitude, -0x1p63, -9_007_199_254_740_993, -1.5, -1, -0.0, 0, 5e-324, 0.5, 1, 41.999, 42, 42.000001,
            9_007_199_254_740_992, 9_007_199_254_740_994, 0x1p63, 0x1p63.nextDown, 0x1p64, .greatestFiniteMagnitude,
        ]
        values += doubles.map { .leaf(.double($0)) }
        let strings = [
            "", "\u{0}", "\u{0}a", "a", "a\u{0}", "a\u{0}b", "ab", "b", "Z", "z", "é", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "😀",
            "😀a", "\u{E000}a", "aa", "a😀",
        ]
        values += strings.map { .leaf(.string($0)) }
        return values
    }()

    static let keys: [ChildKey] = [
        "-2147483648", "-5", "-1", "0", "1", "7", "9", "10", "2147483647", "007", "-0", "00", "2147483648", "a", "a b", "ab", "b", "é", "\u{E000}",
        "😀", "z", "-", "1a",
    ].map { ChildKey(unchecked: $0) }

    @Test("bytes order exactly as IndexedValueKey.compare, over every pair of edge values and keys")
    func orderMatches() {
        var all: [IndexedValueKey] = []
        for value in Self.values {
            for key in Self.keys { all.append(IndexedValueKey(value, key)) }
        }
        let encoded = all.map(IndexSortKey.init)
        var mismatches: [String] = []
        for i in all.indices {
            for j in all.indices {
                let expected = IndexedValueKey.compare(all[i], all[j]).signum()
                let actual = encoded[i] < encoded[j] ? -1 : (encoded[i] == encoded[j] ? 0 : 1)
                if expected != actual, mismatches.count < 10 { mismatches.append("\(all[i]) vs \(all[j]): \(expected), bytes \(actual)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test("a child's key comes back from its sort key")
    func keyRoundTrips() {
        for value in Self.values {
            for key in Self.keys {
                let decoded = IndexSortKey(IndexedValueKey(value, key)).childKey
                #expect(decoded?.name == key.name, "\(value) \(key)")
            }
        }
        #expect(IndexSortKey(bound: IndexPosition(.int(3), .max)).childKey == nil)
        #expect(IndexSortKey(bytes: [0x06, 0x61]).childKey == nil)
    }

    @Test("a bound orders as IndexedValueKey.compare(to:) with its minimum, maximum or key")
    func boundsMatch() {
        var positions: [IndexPosition] = []
        let leaves: [LeafValue?] = [nil, .bool(true), .int(42), .double(41.5), .string(""), .string("a"), .string("a\u{0}"), .string("😀")]
        for leaf in leaves {
            positions += [IndexPosition(leaf, .min), IndexPosition(leaf, .max)]
            positions += Self.keys.prefix(8).map { IndexPosition(leaf, .key($0)) }
        }
        var mismatches: [String] = []
        for position in positions {
            let bound = IndexSortKey(bound: position)
            for value in Self.values {
                for key in Self.keys {
                    let child = IndexedValueKey(value, key)
                    let encoded = IndexSortKey(child)
                    let expected = child.compare(to: position).signum()
                    let actual = encoded < bound ? -1 : (encoded == bound ? 0 : 1)
                    if expected != actual, mismatches.count < 10 { mismatches.append("\(child) vs \(position): \(expected), bytes \(actual)") }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }
}

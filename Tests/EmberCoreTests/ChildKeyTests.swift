import EmberCore
import Testing

@Suite struct ChildKeyTests {
    private func sorted(_ names: [String]) -> [String] {
        names.map { ChildKey(unchecked: $0) }.sorted().map(\.name)
    }

    @Test func integerKeysComeFirstNumerically() {
        #expect(sorted(["b", "10", "a", "9", "-1", "2"]) == ["-1", "2", "9", "10", "a", "b"])
    }

    @Test func thirtyTwoBitRangeDecidesWhatIsAnInteger() {
        // 2^31 - 1 and -2^31 are integers; one beyond each is a plain string key.
        #expect(sorted(["2147483648", "2147483647", "-2147483649", "-2147483648", "0"])
            == ["-2147483648", "0", "2147483647", "-2147483649", "2147483648"])
        #expect(ChildKey(unchecked: "2147483647").integerValue == Int32.max)
        #expect(ChildKey(unchecked: "2147483648").integerValue == nil)
        #expect(ChildKey(unchecked: "-2147483648").integerValue == Int32.min)
    }

    @Test func leadingZerosParseAndTheShorterSortsFirst() {
        #expect(ChildKey(unchecked: "007").integerValue == 7)
        #expect(sorted(["007", "7", "07", "8", "6"]) == ["6", "7", "07", "007", "8"])
        // Many leading zeros are fine as long as at most ten significant digits follow.
        #expect(ChildKey(unchecked: "000000000001").integerValue == 1)
        #expect(ChildKey(unchecked: "12345678901").integerValue == nil)
    }

    @Test("a key that is the canonical form of its integer is the same key as that integer; a padded one is another key")
    func canonicalIntegerKeysAreTheirIntegers() {
        let names = [
            "0", "-0", "00", "7", "07", "-7", "-07", "10", "100", "-100", "2147483647", "-2147483648", "02147483647",
            "-02147483648", "000000000001", "-1", "1",
        ]
        for name in names {
            let value = ChildKey(unchecked: name).integerValue!
            let canonical = String(value) == name
            #expect((ChildKey(unchecked: name) == ChildKey(value)) == canonical, "\(name)")
            #expect(ChildKey(unchecked: name).name == name, "\(name) keeps its spelling")
        }
        #expect(ChildKey(unchecked: "-0") != ChildKey(unchecked: "0"))
        #expect(ChildKey(unchecked: "-0") == ChildKey(unchecked: "-0"))
    }

    @Test func notIntegers() {
        for name in ["1.5", "+1", "1e3", " 1", "1 ", "-", "--1", "0x1", "١"] {
            #expect(ChildKey(unchecked: name).integerValue == nil, "\(name)")
        }
    }

    @Test func stringsCompareByUTF16CodeUnits() {
        // U+E000 (a BMP private-use character) sorts after U+1F600 in UTF-16, though its code
        // point is lower: surrogates (0xD83D...) come before 0xE000.
        #expect(sorted(["\u{E000}", "\u{1F600}", "z", "é"]) == ["z", "é", "\u{1F600}", "\u{E000}"])
        #expect(sorted(["b", "B", "a", "_", "~", "-"]) == ["-", "B", "_", "a", "b", "~"])
        #expect(sorted(["ab", "a", "abc", ""]) == ["", "a", "ab", "abc"])
    }

    @Test func equalityIsByteExact() {
        let composed = ChildKey(unchecked: "é")
        let decomposed = ChildKey(unchecked: "e\u{301}")
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(ChildKey.compare(composed, decomposed) != 0)
    }

    @Test func validKeysAtTheLengthLimit() throws {
        let longest = String(repeating: "a", count: 768)
        #expect(try ChildKey(validating: longest).name == longest)
        // 256 three-byte characters are 768 bytes.
        let wide = String(repeating: "日", count: 256)
        #expect(try ChildKey(validating: wide).name == wide)
    }

    @Test func invalidKeysSayWhy() {
        func problem(_ name: String) -> String? {
            do {
                _ = try ChildKey(validating: name)
                return nil
            } catch {
                #expect(error.code == "invalid_key")
                return error.message
            }
        }
        #expect(problem("")?.contains("must not be empty") == true)
        #expect(problem(String(repeating: "a", count: 769))?.contains("at most 768 bytes of UTF-8, this one has 769") == true)
        #expect(problem(String(repeating: "日", count: 257))?.contains("this one has 771") == true)
        for forbidden in [".", "$", "#", "[", "]", "/"] {
            #expect(problem("a\(forbidden)b")?.contains("must not contain \"\(forbidden)\"") == true, "\(forbidden)")
        }
        #expect(problem("a\u{00}b")?.contains("U+0000") == true)
        #expect(problem("a\u{1F}b")?.contains("U+001F") == true)
        #expect(problem("a\u{7F}b")?.contains("U+007F") == true)
        #expect(problem("line\nbreak")?.contains("U+000A") == true)
        #expect(problem("\u{20}ok") == nil)
        #expect(problem("\u{80}ok") == nil)
    }

    /// `Set` and `Dictionary` hash keys with ``ChildKey/_rawHashValue(seed:)`` (one-call
    /// SipHash-1-3): equal keys hash alike under every table seed, keys that differ stay apart,
    /// and a table of many keys finds each.
    @Test func keysHashAsTheyCompareInSetsAndDictionaries() {
        let names = ["7", "07", "-0", "0", "-7", "a", "ab", "abcdefgh", "abcdefghi", "日本", "k123", "2147483648", ""]
        for seed in [0, 1, -1, 0x5EED, Int.max] {
            for name in names {
                // The same key made two ways: from its name, and (an integer) from its value.
                let key = ChildKey(unchecked: name)
                #expect(key._rawHashValue(seed: seed) == ChildKey(unchecked: String(name))._rawHashValue(seed: seed))
                if let value = key.integerValue, key.name == String(value) {
                    #expect(ChildKey(value)._rawHashValue(seed: seed) == key._rawHashValue(seed: seed))
                }
            }
        }
        // Padded integers, canonical ones and strings are different keys in a set.
        let keys = Set(["7", "07", "007", "-0", "0", "7a"].map(ChildKey.init(unchecked:)) + [ChildKey(7)])
        #expect(keys.count == 6)
        // A table seeded differently gives another hash for the same key (a table's seed is mixed in).
        #expect(ChildKey(unchecked: "k1")._rawHashValue(seed: 1) != ChildKey(unchecked: "k1")._rawHashValue(seed: 2))
        var table: [ChildKey: Int] = [:]
        for index in 0..<50_000 {
            table[ChildKey(unchecked: index % 2 == 0 ? "k\(index)" : String(index))] = index
        }
        #expect(table.count == 50_000)
        for index in stride(from: 0, to: 50_000, by: 7) {
            #expect(table[ChildKey(unchecked: index % 2 == 0 ? "k\(index)" : String(index))] == index)
        }
        // The low bits, which pick a bucket, are spread: of 50,000 keys over 65,536 buckets about
        // 35,900 distinct ones are expected (1 − e^(−50000/65536)); a weak hash gives far fewer.
        let buckets = Set(table.keys.map { $0._rawHashValue(seed: 0) & 0xFFFF })
        #expect(buckets.count > 34_000)
    }

    @Test("isPriority is equality with .priority, byte for byte",
        arguments: [".priority", "priority", ".priorit", ".priorityx", ".Priority", "7", "007", "", ".value", ".p\u{0072}iority", ".prio\u{0301}rity"])
    func isPriorityMatchesEquality(name: String) {
        let key = ChildKey(unchecked: name)
        #expect(key.isPriority == (key == .priority), "\(name)")
        let path = Path(keys: [ChildKey("a"), key])
        #expect(path.isPriority == (key == .priority))
    }
}

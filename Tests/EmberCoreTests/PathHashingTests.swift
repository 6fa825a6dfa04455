import Testing

@testable import EmberCore

/// Paths in sets and dictionaries hash through ``Path/_rawHashValue(seed:)``.
@Suite struct PathHashingTests {
    @Test func pathsHashAsTheyCompare() {
        let texts = ["/", "/a", "/a/b", "/ab", "/a/bc", "/ab/c", "/7/07", "/users/-Nx1/name", "/日本/k1"]
        for seed in [0, 1, 0x5EED] {
            for text in texts {
                #expect(Path(unchecked: text)._rawHashValue(seed: seed) == Path(keys: Path(unchecked: text).keys)._rawHashValue(seed: seed))
            }
        }
        // Where the keys split matters: `a/bc` and `ab/c` are different paths with other hashes.
        #expect(Path(unchecked: "/a/bc")._rawHashValue(seed: 0) != Path(unchecked: "/ab/c")._rawHashValue(seed: 0))
        #expect(Set(texts.map(Path.init(unchecked:))).count == texts.count)
        var table: [Path: Int] = [:]
        for index in 0..<20_000 { table[Path(unchecked: "/users/u\(index % 100)/items/\(index)")] = index }
        #expect(table.count == 20_000)
        for index in stride(from: 0, to: 20_000, by: 11) { #expect(table[Path(unchecked: "/users/u\(index % 100)/items/\(index)")] == index) }
    }
}

import EmberCore
import EmberTestSupport
import Testing

@Suite struct PushIDGeneratorTests {
    @Test func strictlyIncreasingUnderAFrozenClock() {
        var generator = PushIDGenerator()
        var random = SeededRandom(seed: 1)
        let clock = ManualClock(1_700_000_000_000)
        var previous = ""
        for _ in 0..<10_000 {
            let id = generator.next(now: clock.now(), using: &random)
            #expect(id.count == 20)
            #expect(id > previous)
            #expect(ChildKey.compare(ChildKey(unchecked: previous), ChildKey(unchecked: id)) < 0)
            previous = id
        }
        #expect(PushIDGenerator.timestamp(of: previous) == 1_700_000_000_000)
    }

    @Test func timePrefixSortsAcrossMilliseconds() {
        var generator = PushIDGenerator()
        var random = SeededRandom(seed: 2)
        let first = generator.next(now: 1000, using: &random)
        let second = generator.next(now: 1001, using: &random)
        #expect(first < second)
        // 1000 = 15 * 64 + 40: digits 15 ("E") and 40 ("c") after six zero digits ("-").
        #expect(first.prefix(8) == "------Ec")
        #expect(PushIDGenerator.timestamp(of: first) == 1000)
        #expect(PushIDGenerator.timestamp(of: second) == 1001)
    }

    @Test func theIncrementCarries() {
        // Find a random state whose last character is "z" (63) and check the carry.
        var generator = PushIDGenerator()
        var random = SeededRandom(seed: 3)
        var previous = generator.next(now: 5, using: &random)
        var carried = false
        for _ in 0..<200 {
            let id = generator.next(now: 5, using: &random)
            #expect(id > previous)
            if previous.last == "z" {
                #expect(id.last == "-")
                carried = true
            }
            previous = id
        }
        #expect(carried)
    }

    @Test func aClockGoingBackwardsKeepsTheOrder() {
        var generator = PushIDGenerator()
        var random = SeededRandom(seed: 4)
        let late = generator.next(now: 10_000, using: &random)
        let early = generator.next(now: 9_000, using: &random)
        #expect(early > late)
    }

    @Test func alphabetIsInASCIIOrder() {
        let alphabet = PushIDGenerator.alphabet.map { String($0) }
        #expect(alphabet == alphabet.sorted())
        #expect(alphabet.count == 64)
    }
}

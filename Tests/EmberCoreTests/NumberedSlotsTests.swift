import EmberCore
import EmberTestSupport
import Testing

/// Values under increasing numbers in a window of slots, checked against a dictionary.
@Suite("NumberedSlots")
struct NumberedSlotsTests {
    @Test("numbers given back in any order give each value once; numbers skipped hold nothing")
    func randomAgainstDictionary() {
        for seed in UInt64(1)...5 {
            var random = SeededRandom(seed: seed)
            var slots = NumberedSlots<Int>()
            var model: [Int: Int] = [:]
            var held: [Int] = []
            var next = 1
            for step in 0..<4_000 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<5:
                    let number = next
                    next += 1
                    // Now and then a number is skipped (a request not sent).
                    guard Int.random(in: 0..<8, using: &random) != 0 else { continue }
                    slots.insert(number * 10, at: number)
                    model[number] = number * 10
                    held.append(number)
                case 5..<8 where !held.isEmpty:
                    // Mostly the oldest, sometimes one further on.
                    let index = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<held.count, using: &random) : 0
                    let number = held.remove(at: index)
                    #expect(slots.remove(number) == model.removeValue(forKey: number), "seed \(seed) step \(step): \(number)")
                    #expect(slots.remove(number) == nil, "seed \(seed) step \(step): \(number) given back twice")
                case 8:
                    // A number never taken, or long since given back; or one held, replaced.
                    let number = Int.random(in: 0..<(next + 2), using: &random)
                    #expect(slots[number] == model[number], "seed \(seed) step \(step): \(number)")
                    if model[number] != nil {
                        slots.insert(-number, at: number)
                        model[number] = -number
                    } else {
                        #expect(slots.remove(number) == nil)
                    }
                default:
                    if Int.random(in: 0..<200, using: &random) == 0 {
                        #expect(slots.removeAll() == model.keys.sorted().map { model[$0]! }, "seed \(seed) step \(step)")
                        model.removeAll()
                        held.removeAll()
                    }
                }
                #expect(slots.count == model.count)
                #expect(slots.isEmpty == model.isEmpty)
            }
            #expect(slots.values == model.keys.sorted().map { model[$0]! }, "seed \(seed)")
            #expect(slots.numbers == model.keys.sorted(), "seed \(seed)")
        }
    }

    @Test("a value never given back does not keep the slots of every later number")
    func straggler() {
        var slots = NumberedSlots<String>()
        slots.insert("lost", at: 1)
        for number in 2...10_001 {
            slots.insert("n\(number)", at: number)
            #expect(slots.remove(number) == "n\(number)")
        }
        #expect(slots.windowLength <= NumberedSlots<String>.thinningFloor + 1)
        #expect(slots.count == 1)
        #expect(slots[1] == "lost")
        slots.insert("late", at: 10_002)
        #expect(slots.values == ["lost", "late"])
        #expect(slots.remove(1) == "lost")
        #expect(slots.removeAll() == ["late"])
        #expect(slots.isEmpty)
    }

    @Test("many values held keep their slots and come back in order")
    func manyHeld() {
        var slots = NumberedSlots<Int>()
        for number in 100..<5_100 { slots.insert(number, at: number) }
        #expect(slots.windowLength == 5_000)
        for number in stride(from: 100, to: 5_100, by: 2) { #expect(slots.remove(number) == number) }
        #expect(slots.windowLength == 4_999, "the front's empty slot dropped, the others kept: half full")
        #expect(slots.removeAll() == Array(stride(from: 101, to: 5_100, by: 2)))
    }

    @Test("numbers read back from a store, with gaps, in order")
    func restoredWithGaps() {
        var slots = NumberedSlots<String>()
        for number in [5, 9, 200, 201] { slots.insert("r\(number)", at: number) }
        #expect(slots[9] == "r9")
        #expect(slots[10] == nil)
        #expect(slots.remove(5) == "r5")
        #expect(slots.values == ["r9", "r200", "r201"])
    }
}

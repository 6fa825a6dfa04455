import EmberCore
import Testing

@testable import EmberSync

@Suite("ChildChangeAccumulator")
struct ChildChangeAccumulatorTests {
    private func key(_ name: String) -> ChildKey { ChildKey(unchecked: name) }

    @Test("successive changes to one child fold into one, as Firebase's ChildChangeAccumulator folds them")
    func folding() {
        var accumulator = ChildChangeAccumulator()
        // removed then added: changed, from the old value.
        accumulator.track(.childRemoved(key("a"), old: node("1")))
        accumulator.track(.childAdded(key("a"), node("2")))
        // changed then removed: removed, of the first old value.
        accumulator.track(.childChanged(key("b"), node("3"), old: node("2")))
        accumulator.track(.childRemoved(key("b"), old: node("3")))
        // added then changed: added, with the last value.
        accumulator.track(.childAdded(key("c"), node("1")))
        accumulator.track(.childChanged(key("c"), node("5"), old: node("1")))
        // changed then changed: changed, from the first old value to the last.
        accumulator.track(.childChanged(key("d"), node("2"), old: node("1")))
        accumulator.track(.childChanged(key("d"), node("3"), old: node("2")))
        #expect(
            accumulator.takeResult().rendered == [
                "changed a = 2 (was 1)", "removed b (was 2)", "added c = 5", "changed d = 3 (was 1)",
            ])
    }

    @Test("a child added then removed leaves no change; touched again, it comes last (Firebase's map deletes it)")
    func cancelledChildLeaves() {
        var accumulator = ChildChangeAccumulator()
        accumulator.track(.childAdded(key("a"), node("1")))
        accumulator.track(.childAdded(key("b"), node("2")))
        accumulator.track(.childRemoved(key("a"), old: node("1")))
        #expect(accumulator.takeResult().rendered == ["added b = 2"])
        var again = ChildChangeAccumulator()
        again.track(.childAdded(key("a"), node("1")))
        again.track(.childAdded(key("b"), node("2")))
        again.track(.childRemoved(key("a"), old: node("1")))
        again.track(.childAdded(key("a"), node("9")))
        #expect(again.takeResult().rendered == ["added b = 2", "added a = 9"])
    }

    @Test("past the first eight children, folds find their child by its index, also after a child cancelled out")
    func manyChildren() {
        var accumulator = ChildChangeAccumulator(distinct: (0..<20).map { .childAdded(key("k\($0)"), Node(.int(Int64($0)))) })
        // Cancel one inside the scanned part and one past it, then fold others past it.
        accumulator.track(.childRemoved(key("k3"), old: node("3")))
        accumulator.track(.childRemoved(key("k12"), old: node("12")))
        accumulator.track(.childChanged(key("k15"), node("150"), old: node("15")))
        accumulator.track(.childChanged(key("k8"), node("80"), old: node("8")))
        accumulator.track(.childChanged(key("k19"), node("190"), old: node("19")))
        accumulator.track(.childAdded(key("k3"), node("33")))
        var expected = (0..<20).filter { $0 != 3 && $0 != 12 }.map { "added k\($0) = \($0)" }
        expected[expected.firstIndex(of: "added k15 = 15")!] = "added k15 = 150"
        expected[expected.firstIndex(of: "added k8 = 8")!] = "added k8 = 80"
        expected[expected.firstIndex(of: "added k19 = 19")!] = "added k19 = 190"
        expected.append("added k3 = 33")
        #expect(accumulator.takeResult().rendered == expected)
    }
}

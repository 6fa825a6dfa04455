import EmberCore
import Testing

@Suite("Dictionary: a value made when absent")
struct DictionaryInsertingTests {
    final class Box {
        var count = 0
    }

    @Test("the first call stores what it makes; later calls return that, without making another")
    func storesOnceAndReturnsTheSame() {
        var made = 0
        var children: [String: Box] = [:]
        let first = children.value(forKey: "a") {
            made += 1
            return Box()
        }
        first.count = 7
        let again = children.value(forKey: "a") {
            made += 1
            return Box()
        }
        #expect(again === first && again.count == 7)
        #expect(made == 1)
        _ = children.value(forKey: "b", inserting: Box.init)
        #expect(children.count == 2)
    }
}

import FastStore
import Testing

@Suite("Collection preconditions")
struct CollectionCrashTests {
    @Test func readOutOfRange() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list: VersionedList<Int> = [1, 2, 3]
            _ = list[3]
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Index out of range"))
    }

    @Test func writeOutOfRange() async {
        await #expect(processExitsWith: .failure) {
            var list: VersionedList<Int> = [1, 2, 3]
            list[-1] = 0
        }
    }

    @Test func removeOutOfRange() async {
        await #expect(processExitsWith: .failure) {
            var list: VersionedList<Int> = []
            list.remove(at: 0)
        }
    }
}

@Suite("VersionedDictionary preconditions")
struct VersionedDictionaryCrashTests {
    @Test func duplicateKeyInLiteral() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = VersionedDictionary(uniqueKeysWithValues: [("a", 1), ("a", 2)])
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("Duplicate key: a"))
    }
}

@testable import FastStore
import FastStoreTestSupport
import Testing

@Suite("VersionedList against Array")
struct VersionedListModelTests {
    @Test(arguments: [0, 100, 3000])
    func randomOperationsMatchArray(initialCount: Int) {
        var fuzz = ListFuzzer(fallbackSeed: 0xC011 &+ UInt64(initialCount))
        let initial = (0 ..< initialCount).map { $0 % 1000 }
        var list = VersionedList(initial)
        var model = ListReferenceModel(initial)
        for step in 0 ..< 600 {
            let op = fuzz.step(&list, &model)
            #if FASTSTORE_INTERNAL_CHECKS
            list._invariantCheck()
            #endif
            guard listMatches(list, model.values) else {
                Issue.record("seed \(fuzz.seed): step \(step) (\(op)) diverged from Array")
                return
            }
        }
    }

    @Test func hiddenCopiesAreNeverChanged() {
        var fuzz = ListFuzzer(fallbackSeed: 0x41DE)
        let initial = (0 ..< 2500).map { $0 % 1000 }
        var list = VersionedList(initial)
        var model = ListReferenceModel(initial)
        var copies = HiddenCopies<VersionedList<Int>, [Int]>(limit: 6)
        for step in 0 ..< 500 {
            if fuzz.int(0 ... 9) == 0 { copies.keep(list, model.values) }
            let versionBefore = list.version
            let op = fuzz.step(&list, &model)
            if list.version != versionBefore {
                #expect(list.version > versionBefore, "seed \(fuzz.seed): version did not advance")
            }
            copies.verify { old, snapshot in
                if !listMatches(old, snapshot) {
                    Issue.record("seed \(fuzz.seed): step \(step) (\(op)) changed a hidden copy")
                }
                #expect(old.nodeID == list.nodeID)
            }
        }
        #expect(!copies.isEmpty)
    }

    @Test func deepTreeKeepsInvariants() {
        var fuzz = ListFuzzer(fallbackSeed: 0xDEE9)
        let initial = Array(0 ..< 150_000)
        var list = VersionedList(initial)
        var model = initial
        let older = list
        let height = list._root.height
        #expect(height >= 3)
        for _ in 0 ..< 300 {
            let i = fuzz.int(0 ... model.count - 1)
            switch fuzz.int(0 ... 2) {
            case 0: list.insert(-i, at: i); model.insert(-i, at: i)
            case 1: list.remove(at: i); model.remove(at: i)
            default: list[i] = -1; model[i] = -1
            }
        }
        #if FASTSTORE_INTERNAL_CHECKS
        list._invariantCheck()
        older._invariantCheck()
        #endif
        #expect(Array(list) == model, "seed \(fuzz.seed)")
        #expect(Array(older) == initial)
        // NB: a bulk-built tree is packed full, so a hundred inserts may
        // split up to the root once.
        #expect(list._root.height >= height && list._root.height <= height + 1)
    }

    @Test func versionAndIdentity() {
        var list: VersionedList<Int> = [1, 2, 3]
        let copy = list
        let id = list.nodeID
        #expect(copy.version == list.version)
        list[0] = 10
        #expect(list.nodeID == id)
        #expect(list.version > copy.version)
        let other: VersionedList<Int> = [1, 2, 3]
        #expect(other.nodeID != id)
        var unchanged = list
        unchanged.replaceSubrange(1 ..< 1, with: [])
        #expect(unchanged.version == list.version, "an empty replacement is not a write")
    }

    @Test func inPlaceWhenUnique() {
        var list = VersionedList(0 ..< 10_000)
        let root = ObjectIdentifier(list._root)
        list[5_000] = 7
        list.append(1)
        #expect(ObjectIdentifier(list._root) == root, "a unique list is written in place")
        let copy = list
        list[5_000] = 8
        #expect(ObjectIdentifier(list._root) != ObjectIdentifier(copy._root))
        #expect(copy[5_000] == 7)
    }
}

@Suite("VersionedList across threads")
struct VersionedListConcurrencyTests {
    /// Older versions read, iterated and diffed on other threads while this
    /// one keeps writing newer versions (run under `--sanitize=thread` too).
    @Test func olderVersionsAreStableWhileWritten() async {
        var list = VersionedList(0 ..< 20_000)
        var snapshots: [(list: VersionedList<Int>, sum: Int, count: Int)] = []
        var sum = list.reduce(0, &+)
        for i in 0 ..< 16 {
            sum += -i - list[i * 7]
            list[i * 7] = -i
            list.append(i)
            sum += i
            snapshots.append((list, sum, list.count))
        }
        let final = snapshots[snapshots.count - 1].list
        await withTaskGroup(of: Bool.self) { group in
            for snapshot in snapshots {
                group.addTask {
                    let changes = final.difference(from: snapshot.list)
                    var rows = Array(snapshot.list)
                    changes.apply(to: &rows, from: final)
                    return snapshot.list.reduce(0, &+) == snapshot.sum
                        && snapshot.list.count == snapshot.count
                        && rows == Array(final)
                }
            }
            for k in 0 ..< 3000 {
                list[(k &* 7919) % list.count] = k
                if k % 3 == 0 { list.insert(k, at: k % list.count) }
            }
            for await ok in group { #expect(ok) }
        }
        for snapshot in snapshots { #expect(snapshot.list.reduce(0, &+) == snapshot.sum) }
    }
}

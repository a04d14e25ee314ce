@testable import FastStore
import FastStoreTestSupport
import Testing

@Suite("VersionedList diff")
struct VersionedListDiffTests {
    /// Keeps versions (linear and forked), then diffs random pairs of them
    /// both ways and checks against the model's naive diff.
    @Test(arguments: [0, 200, 4000])
    func diffMatchesNaiveDiff(initialCount: Int) {
        var fuzz = ListFuzzer(fallbackSeed: 0xD1FF &+ UInt64(initialCount))
        let initial = (0 ..< initialCount).map { $0 % 1000 }
        var list = VersionedList(initial)
        var model = ListReferenceModel(initial)
        var versions: [(VersionedList<Int>, ListReferenceModel<Int>)] = [(list, model)]
        for step in 0 ..< 400 {
            // Sometimes fork from an older version (a sibling history).
            if fuzz.int(0 ... 19) == 0 {
                (list, model) = versions[fuzz.int(0 ... versions.count - 1)]
            }
            // Bursts of small writes between snapshots.
            for _ in 0 ..< fuzz.int(1 ... 4) { fuzz.step(&list, &model) }
            versions.append((list, model))
            if versions.count > 12 { versions.remove(at: fuzz.int(0 ... versions.count - 1)) }
            let (oldList, oldModel) = versions[fuzz.int(0 ... versions.count - 1)]
            check(list, model, from: oldList, oldModel, seed: fuzz.seed, step: step)
            check(oldList, oldModel, from: list, model, seed: fuzz.seed, step: step)
        }
    }

    private func check(
        _ newer: VersionedList<Int>, _ newModel: ListReferenceModel<Int>,
        from older: VersionedList<Int>, _ oldModel: ListReferenceModel<Int>,
        seed: UInt64, step: Int
    ) {
        let changes = newer.difference(from: older)
        let naive = newModel.naiveDifference(from: oldModel)
        #expect(changes.removed == naive.removed, "seed \(seed) step \(step): removed")
        #expect(changes.inserted == naive.inserted, "seed \(seed) step \(step): inserted")
        #expect(changes.updated == naive.updated, "seed \(seed) step \(step): updated")
        #expect(changes.updatedInOlder == naive.updatedInOlder, "seed \(seed) step \(step): updatedInOlder")
        var rows = oldModel.values
        changes.apply(to: &rows, from: newer)
        #expect(rows == newModel.values, "seed \(seed) step \(step): applying the changes")
    }

    @Test func oneWriteAmongManyIsOneUpdate() {
        var list = VersionedList(0 ..< 200_000)
        let older = list
        list[123_456] = -1
        let changes = list.difference(from: older)
        #expect(changes == VersionedListChanges(updated: [123_456], updatedInOlder: [123_456]))
        list.insert(5, at: 10)
        list.remove(at: 199_000)
        let more = list.difference(from: older)
        #expect(more.inserted == [10])
        #expect(more.removed == [198_999])
        #expect(more.updated == [123_457])
        #expect(more.updatedInOlder == [123_456])
    }

    @Test func identicalVersionsHaveNoChanges() {
        let list = VersionedList(0 ..< 1000)
        #expect(list.difference(from: list).isEmpty)
        var other = list
        other[3] = 3  // a write, even of an equal value, is an update
        #expect(other.difference(from: list).updated == [3])
    }

    @Test func unrelatedListsFallBack() {
        struct Opaque { var x: Int }
        let a = VersionedList([Opaque(x: 1), Opaque(x: 2)])
        let b = VersionedList([Opaque(x: 1), Opaque(x: 3), Opaque(x: 4)])
        let opaque = b.difference(from: a)
        #expect(opaque.removed == [0, 1])
        #expect(opaque.inserted == [0, 1, 2])

        let x: VersionedList<Int> = [1, 2, 3, 4]
        let y: VersionedList<Int> = [1, 3, 4, 5]
        let compared = y.difference(from: x)
        #expect(compared.removed == [1])
        #expect(compared.inserted == [3])
        var rows = Array(x)
        compared.apply(to: &rows, from: y)
        #expect(rows == Array(y))
    }

    @Test func batchUpdateCallsInTableViewOrder() {
        var list = VersionedList(0 ..< 100)
        let older = list
        list.remove(at: 5)
        list.insert(-1, at: 0)
        list[50] = 0
        var calls: [String] = []
        list.difference(from: older).forEachBatch(
            delete: { calls.append("delete \($0)") },
            insert: { calls.append("insert \($0)") },
            reload: { calls.append("reload \($0)") })
        #expect(calls == ["delete [5]", "insert [0]", "reload [50]"])
    }
}

@Suite("VersionedList diff cost")
struct VersionedListDiffCostTests {
    /// The diff walks only what the versions do not share: its step count
    /// stays near (changed paths × branch width), far below the leaf count.
    @Test func diffVisitsOnlyUnsharedNodes() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0xC057)
        let n = 300_000
        let older = VersionedList(0 ..< n)
        let levels = older._root.height
        let width = _ListNode<Int>.branchCapacity
        #expect(levels >= 3)
        for writes in [1, 3, 10] {
            var newer = older
            for _ in 0 ..< writes {
                let i = Int.random(in: 0 ..< newer.count, using: &rng)
                switch Int.random(in: 0 ..< 3, using: &rng) {
                case 0: newer[i] = -1
                case 1: newer.insert(-1, at: i)
                default: newer.remove(at: i)
                }
            }
            var visited = 0
            _ = _ListNode.difference(from: older._root, to: newer._root, visited: &visited)
            // Each write touches one path: at most `levels` branch levels
            // of `width` siblings plus a few leaves; the tree has ~4,700
            // leaves.
            #expect(visited <= writes * levels * 2 * width + 64, "seed \(rng.seed): \(visited) steps for \(writes) writes")
            var reverse = 0
            _ = _ListNode.difference(from: newer._root, to: older._root, visited: &reverse)
            #expect(reverse <= writes * levels * 2 * width + 64, "seed \(rng.seed): \(reverse) steps reversed")
        }
    }
}

/// Unrelated lists (different `nodeID`) fall back to the standard library's
/// diff, whose removals come in descending order: the changes must still be
/// sorted ascending, and applying them must rebuild the newer list.
@Suite struct UnrelatedDiffTests {
    @Test func unrelatedEquatableListsGiveSortedApplicableChanges() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x5EED_D1FF)
        for _ in 0 ..< 300 {
            let older = VersionedList((0 ..< Int.random(in: 0 ... 12, using: &rng)).map { _ in Int.random(in: 0 ... 4, using: &rng) })
            let newer = VersionedList((0 ..< Int.random(in: 0 ... 12, using: &rng)).map { _ in Int.random(in: 0 ... 4, using: &rng) })
            let changes = newer.difference(from: older)
            #expect(changes.removed == changes.removed.sorted(), "seed \(rng.seed): \(Array(older)) -> \(Array(newer)): \(changes)")
            #expect(changes.inserted == changes.inserted.sorted(), "seed \(rng.seed)")
            var rows = Array(older)
            changes.apply(to: &rows, from: newer)
            #expect(rows == Array(newer), "seed \(rng.seed): \(Array(older)) -> \(Array(newer)): \(changes)")
        }
    }

    @Test func unrelatedIdentifiedListsGiveSortedApplicableChanges() {
        struct Item: Identifiable, Equatable { let id: Int; var v: Int }
        var rng = SeededGenerator.fromEnvironment(fallback: 0x1DE7_D1FF)
        for _ in 0 ..< 300 {
            let oldIDs = Array(0 ..< 10).shuffled(using: &rng).prefix(Int.random(in: 0 ... 10, using: &rng))
            let newIDs = Array(0 ..< 10).shuffled(using: &rng).prefix(Int.random(in: 0 ... 10, using: &rng))
            let older = IdentifiedList(oldIDs.map { Item(id: $0, v: 0) })
            let newer = IdentifiedList(newIDs.map { Item(id: $0, v: 1) })
            let changes = newer.difference(from: older)
            #expect(changes.offsets.removed == changes.offsets.removed.sorted(), "seed \(rng.seed): \(changes)")
            #expect(changes.offsets.inserted == changes.offsets.inserted.sorted(), "seed \(rng.seed): \(changes)")
            var rows = older.map(\.id)
            for offset in changes.offsets.removed.reversed() { rows.remove(at: offset) }
            for offset in changes.offsets.inserted { rows.insert(newer[offset].id, at: offset) }
            #expect(rows == newer.map(\.id), "seed \(rng.seed): \(oldIDs) -> \(newIDs): \(changes)")
        }
    }
}

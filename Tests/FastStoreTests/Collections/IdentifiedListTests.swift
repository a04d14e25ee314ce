@testable import FastStore
import FastStoreTestSupport
import Foundation
import Testing

struct Row: Identifiable, Hashable, Codable, Sendable, CustomStringConvertible {
    var id: Int
    var value: Int
    var description: String { "\(id):\(value)" }
}

/// A row of the random-operation tests: made from an integer key, with a
/// value to write.
protocol ModelRow: Identifiable, Hashable, Sendable, CustomStringConvertible where ID: Comparable & Sendable {
    init(key: Int, value: Int)
    var value: Int { get set }
}

extension Row: ModelRow {
    init(key: Int, value: Int) { self.init(id: key, value: value) }
}

/// A row whose id's hash takes 61 values.
struct CollidingRow: ModelRow {
    struct ID: Hashable, Comparable, Sendable, CustomStringConvertible {
        var x: Int
        static func == (a: Self, b: Self) -> Bool { a.x == b.x }
        static func < (a: Self, b: Self) -> Bool { a.x < b.x }
        func hash(into hasher: inout Hasher) { hasher.combine(x % 61) }
        var description: String { "s\(x)" }
    }

    var id: ID
    var value: Int
    init(key: Int, value: Int) {
        id = ID(x: key)
        self.value = value
    }

    var description: String { "\(id):\(value)" }
}

@Suite("IdentifiedList")
struct IdentifiedListTests {
    /// Compares contents; looks up every id when `full`, else every 37th.
    private func check<R: ModelRow>(
        _ list: IdentifiedList<R>, _ model: ListReferenceModel<R>, _ context: String, full: Bool
    ) -> Bool {
        #if FASTSTORE_INTERNAL_CHECKS
        if full { list._invariantCheck() }
        #endif
        let rows = model.values
        guard list.count == rows.count, Array(list) == rows, list.ids == rows.map(\.id) else {
            Issue.record("\(context): contents diverged")
            return false
        }
        for (i, row) in rows.enumerated() where full || i % 37 == 0 {
            guard list[id: row.id] != row || list.index(id: row.id) != i || list[i] != row else { continue }
            Issue.record("\(context): lookup of id \(row.id) diverged")
            return false
        }
        return true
    }

    @Test(arguments: [0, 300, 3000])
    func randomOperationsMatchArray(initialCount: Int) {
        randomOperations(Row.self, initialCount: initialCount, fallbackSeed: 0x1D5 &+ UInt64(initialCount))
    }

    /// The same with ids whose hashes take 61 values: the index files
    /// several elements under each fragment, a refiled window holds
    /// several of a fragment, and a lookup tells them apart by comparing
    /// ids in the list's leaves. (Leaves of the index past its last level
    /// are `IdentityIndexModelTests`'.)
    @Test(arguments: [0, 300])
    func randomOperationsWithSharedFragmentsMatchArray(initialCount: Int) {
        randomOperations(CollidingRow.self, initialCount: initialCount, fallbackSeed: 0xC07D &+ UInt64(initialCount))
    }

    private func randomOperations<R: ModelRow>(_: R.Type, initialCount: Int, fallbackSeed: UInt64) {
        var rng = SeededGenerator.fromEnvironment(fallback: fallbackSeed)
        let seed = rng.seed
        var nextID = 0
        func newRow() -> R {
            nextID += 1
            return R(key: nextID, value: Int.random(in: 0 ..< 100, using: &rng))
        }
        let initial = (0 ..< initialCount).map { _ in newRow() }
        var list = IdentifiedList(initial)
        var model = ListReferenceModel(initial)
        var versions: [(IdentifiedList<R>, ListReferenceModel<R>)] = [(list, model)]
        // A hot spot that forces relabeling: many inserts at one position.
        let hotSpot = initialCount / 2
        for step in 0 ..< 700 {
            let n = model.count
            let context = "seed \(seed) step \(step)"
            switch Int.random(in: 0 ..< 100, using: &rng) {
            case 0 ..< 20:
                let i = Int.random(in: 0 ... n, using: &rng)
                let row = newRow()
                list.insert(row, at: i)
                model.insert(row, at: i)
            case 20 ..< 35:
                let row = newRow()
                let i = min(hotSpot, n)
                list.insert(row, at: i)
                model.insert(row, at: i)
            case 35 ..< 42:
                let row = newRow()
                if Bool.random(using: &rng) { list.append(row) } else { list[id: row.id] = row }
                model.insert(row, at: n)
            case 42 ..< 55 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                let id = model.values[i].id
                let removed = Bool.random(using: &rng) ? list.remove(id: id) : list.remove(at: i)
                #expect(removed == model.values[i], "\(context): remove")
                model.remove(at: i)
            case 55 ..< 60 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                if Bool.random(using: &rng) {
                    list[id: model.values[i].id] = nil
                } else {
                    // Through `_modify`: the element's slot is emptied
                    // while the caller holds it.
                    func clear(_ element: inout R?) { element = nil }
                    clear(&list[id: model.values[i].id])
                }
                model.remove(at: i)
            case 60 ..< 85 where n > 0:
                let i = Int.random(in: 0 ..< n, using: &rng)
                var row = model.values[i]
                row.value = Int.random(in: 0 ..< 100, using: &rng)
                if Bool.random(using: &rng) {
                    list[id: row.id] = row
                } else {
                    // In place (`_modify`): the element leaves its leaf and
                    // goes back, which may rebalance or split leaves.
                    list[id: row.id]?.value = row.value
                }
                model.set(row, at: i)
            case 85 ..< 87:
                let k = Int.random(in: 2 ... 9, using: &rng)
                list.removeAll { $0.value % k == 0 }
                model.removeAll { $0.value % k == 0 }
            case 87:
                list.sort { $0.value < $1.value || ($0.value == $1.value && $0.id < $1.id) }
                model.sort { $0.value < $1.value || ($0.value == $1.value && $0.id < $1.id) }
            case 88 ..< 92:
                (list, model) = versions[Int.random(in: 0 ..< versions.count, using: &rng)]
            case 92 ..< 96 where n > 1:
                let from = Int.random(in: 0 ..< n, using: &rng), to = Int.random(in: 0 ..< n, using: &rng)
                list.move(from: from, to: to)
                if from != to {
                    let row = model.values[from]
                    model.remove(at: from)
                    model.insert(row, at: to)
                }
            default:
                #expect(list.remove(id: R(key: -1, value: 0).id) == nil)
                #expect(list[id: R(key: -1, value: 0).id] == nil)
            }
            guard check(list, model, context, full: step % 20 == 0) else { return }
            versions.append((list, model))
            if versions.count > 10 { versions.remove(at: Int.random(in: 0 ..< versions.count, using: &rng)) }
            let (old, oldModel) = versions[Int.random(in: 0 ..< versions.count, using: &rng)]
            guard check(old, oldModel, context + " (hidden copy)", full: false) else { return }
            let changes = list.difference(from: old)
            let naive = model.naiveDifference(from: oldModel)
            #expect(changes.offsets.removed == naive.removed, "\(context): removed")
            #expect(changes.offsets.inserted == naive.inserted, "\(context): inserted")
            #expect(changes.offsets.updated == naive.updated, "\(context): updated")
            let oldRows = oldModel.values, newRows = model.values
            #expect(changes.removed == naive.removed.map { oldRows[$0].id }, "\(context): removed ids")
            #expect(changes.inserted == naive.inserted.map { newRows[$0].id }, "\(context): inserted ids")
            #expect(changes.updated == naive.updated.map { newRows[$0].id }, "\(context): updated ids")
        }
    }

    @Test func adversarialInsertionsRelabelLocally() {
        var list = IdentifiedList((0 ..< 10_000).map { Row(id: $0, value: 0) })
        let older = list
        for k in 0 ..< 2_000 { list.insert(Row(id: -1 - k, value: 0), at: 5_000) }
        #if FASTSTORE_INTERNAL_CHECKS
        list._invariantCheck()
        #endif
        #expect(list.index(id: -1) == 6_999)
        #expect(list.index(id: -2_000) == 5_000)
        #expect(list.index(id: 5_000) == 7_000)
        let changes = list.difference(from: older)
        #expect(changes.offsets.inserted == Array(5_000 ..< 7_000))
        #expect(changes.removed.isEmpty && changes.updated.isEmpty, "relabeling is not an update")
    }

    /// Leaf labels at the ends (no neighbour bounds the gap on one side),
    /// and in-place writes of the first element of every leaf, which an
    /// insertion at a leaf boundary puts back at the end of the leaf
    /// before: every id stays findable, checked against the positions.
    @Test func leafLabelsAtTheEndsAndWritesAtLeafStarts() {
        var list = IdentifiedList((0 ..< 2_000).map { Row(id: $0, value: 0) })
        for k in 0 ..< 1_500 {
            list.insert(Row(id: -1 - k, value: 0), at: 0)
            list.append(Row(id: 10_000 + k, value: 0))
        }
        var expected = (0 ..< 1_500).reversed().map { -1 - $0 } + Array(0 ..< 2_000) + (0 ..< 1_500).map { 10_000 + $0 }
        #expect(list.ids == expected)
        for (position, id) in expected.enumerated() where position % 7 == 0 {
            #expect(list.index(id: id) == position, "id \(id)")
        }
        for id in expected where id % 3 == 0 { list[id: id]?.value = 1 }
        for id in expected where id % 5 == 0 { list[id: id] = nil }
        expected.removeAll { $0 % 5 == 0 }
        #if FASTSTORE_INTERNAL_CHECKS
        list._invariantCheck()
        #endif
        #expect(list.ids == expected)
        for (position, id) in expected.enumerated() {
            guard list.index(id: id) == position, list[id: id]?.value == (id % 3 == 0 ? 1 : 0) else {
                Issue.record("id \(id) at \(String(describing: list.index(id: id))), expected \(position)")
                return
            }
        }
    }

    /// The list's own reads of its elements' ids (finding an id in its
    /// leaf, refiling ids after a split, the debug build's invariant check
    /// after every write) are not the caller's: a selector that edits a
    /// copy of a list of `Versioned` rows, whose `id` is a tracked read,
    /// depends on no row it did not read.
    @Test func theListsOwnReadsOfIDsAreNotRecorded() {
        struct Card: Identifiable, Equatable, Sendable {
            var id: Int
            var text: String
        }
        let list = IdentifiedList((0 ..< 40).map { Versioned(Card(id: $0, text: "card \($0)")) })
        // NB: row 30 is written through (`copy[id: 30]?.text = ...`),
        // which is the caller's own access.
        let rows = Set(list.filter { $0.id != 30 }.map { $0._trackingIdentity.node })
        let recorder = _ReadRecorder()
        recorder.record {
            var copy = list
            for k in 0 ..< 20 { copy.insert(Versioned(Card(id: 100 + k, text: "new")), at: 7) }
            copy[id: 30]?.text = "edited"
            copy.remove(id: 31)
            copy.move(from: 0, to: 20)
            _ = copy.contains(id: 5)
        }
        let rowReads = recorder.dependencies.filter { rows.contains($0.node) }
        #expect(rowReads.isEmpty, "recorded \(rowReads.count) reads of rows")
    }

    @Test func moveIsARemovalAndAnInsertion() {
        var list = IdentifiedList((0 ..< 500).map { Row(id: $0, value: $0) })
        let older = list
        let journal = _WriteJournal()
        journal.record { list.move(from: 10, to: 400) }
        #expect(journal.writes.map(\.kind) == [.order], "a move keeps every id's element: only the order changed")
        #expect(list.index(id: 10) == 400)
        #expect(list.index(id: 11) == 10)
        #expect(list.ids == Array(0 ..< 10) + Array(11 ... 400) + [10] + Array(401 ..< 500))
        list.move(from: 499, to: 0)
        #expect(list.ids.first == 499)
        #if FASTSTORE_INTERNAL_CHECKS
        list._invariantCheck()
        #endif
        let changes = list.difference(from: older)
        var rows = Array(older)
        changes.offsets.apply(to: &rows, from: list)
        #expect(rows == Array(list))
        #expect(Set(changes.removed) == [10, 499])
        #expect(Set(changes.inserted) == [10, 499])
        #expect(changes.updated.isEmpty)
    }

    @Test func unrelatedListsDiffByID() {
        let a: IdentifiedList = [Row(id: 1, value: 1), Row(id: 2, value: 2), Row(id: 3, value: 3)]
        let b: IdentifiedList = [Row(id: 3, value: 3), Row(id: 1, value: 9), Row(id: 4, value: 4)]
        let changes = b.difference(from: a)
        var rows = Array(a)
        changes.offsets.apply(to: &rows, from: b)
        #expect(rows == Array(b))
        #expect(Set(changes.removed).contains(2))
        #expect(changes.inserted.contains(4))
        #expect(changes.updated == [1] || changes.removed.contains(1))
    }

    @Test func conformancesAndTracking() throws {
        var list: IdentifiedList = [Row(id: 1, value: 10), Row(id: 2, value: 20)]
        #expect(list.description == "[1:10, 2:20]")
        let data = try JSONEncoder().encode(list)
        let decoded = try JSONDecoder().decode(IdentifiedList<Row>.self, from: data)
        #expect(decoded == list)
        #expect(decoded.hashValue == list.hashValue)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(IdentifiedList<Row>.self, from: Data(#"[{"id":1,"value":1},{"id":1,"value":2}]"#.utf8))
        }
        let recorder = _ReadRecorder()
        recorder.record {
            _ = list[id: 2]
            _ = list.count
        }
        #expect(recorder.dependencies == [
            _Dependency(node: list.nodeID, kind: .element(_ElementKey(2))),
            _Dependency(node: list.nodeID, kind: .structure),
        ])
        let journal = _WriteJournal()
        let before = list.version
        journal.record {
            list[id: 2] = Row(id: 2, value: 21)
            list.append(Row(id: 3, value: 30))
            list.remove(id: 1)
            list.sort { $0.value > $1.value }
        }
        #expect(journal.writes.map(\.kind) == [
            .elementValue(_ElementKey(2)), .element(_ElementKey(3)), .element(_ElementKey(1)), .order,
        ])
        #expect(journal.writes.allSatisfy { $0.node == list.nodeID })
        #expect(journal.link(producing: list._trackingIdentity.version)?.node == list.nodeID)
        #expect(list.version > before)
        #expect(list.ids == [3, 2])
        #expect(list.filter { $0.value > 25 }.ids == [3])
        #expect(list.sorted { $0.value < $1.value }.ids == [2, 3])
        #expect(list.contains(id: 3) && !list.contains(id: 1))
    }
}

@Suite("IdentifiedList preconditions")
struct IdentifiedListCrashTests {
    @Test func duplicateIDOnInsert() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            var list: IdentifiedList = [Row(id: 7, value: 0)]
            list.append(Row(id: 7, value: 1))
        }
        let stderr = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(stderr.contains("IdentifiedList: duplicate id 7"))
    }

    @Test func duplicateIDInLiteral() async {
        await #expect(processExitsWith: .failure) {
            _ = IdentifiedList([Row(id: 1, value: 0), Row(id: 1, value: 0)])
        }
    }

    @Test func positionOutOfRange() async {
        await #expect(processExitsWith: .failure) {
            let list: IdentifiedList = [Row(id: 1, value: 0)]
            _ = list[1]
        }
    }
}

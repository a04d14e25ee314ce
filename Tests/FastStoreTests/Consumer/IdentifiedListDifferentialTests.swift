@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// Rows by id under structural edits (inserts, removals, moves, sorts,
/// updates by id and by position, wholesale replacement): the fast consumer,
/// fed by a store, delivers exactly what the naive full-compare consumer
/// delivers, on seeded random sequences (`FASTSTORE_SEED` reproduces one).
@Suite struct IdentifiedListDifferentialTests {
    struct Row: Identifiable, Hashable, Sendable {
        var id: Int
        var title: String
        var n: Int
    }

    struct Board {
        var rows: IdentifiedList<Row>
        var tag: Int
    }

    typealias State = Versioned<Board>

    enum Edit: CustomStringConvertible {
        case bump(id: Int), retitle(id: Int, String), insert(Row, at: Int), remove(id: Int)
        case move(Int, Int), sortByN, sortByTitle, removeOdd, append(Row), replace([Row]), tag
        /// Through `subscript(id:)`: its setter (an update, an insertion, or
        /// a removal with `nil`) and its `_modify` (an update in place, or
        /// a removal by setting the element to `nil`).
        case set(Row), setNil(id: Int), modifyToNil(id: Int), modifyTitle(id: Int, String)

        var description: String {
            switch self {
            case .bump(let id): "rows[id: \(id)]?.n += 1"
            case .retitle(let id, let t): "rows[id: \(id)]?.title = \(t)"
            case .insert(let row, let at): "insert(\(row.id), at: \(at))"
            case .remove(let id): "remove(id: \(id))"
            case .move(let a, let b): "move(from: \(a), to: \(b))"
            case .sortByN: "sort by n"
            case .sortByTitle: "sort by title"
            case .removeOdd: "removeAll(where: odd n)"
            case .append(let row): "append(\(row.id))"
            case .replace(let rows): "rows = \(rows.map(\.id))"
            case .tag: "tag += 1"
            case .set(let row): "rows[id: \(row.id)] = \(row)"
            case .setNil(let id): "rows[id: \(id)] = nil"
            case .modifyToNil(let id): "clear(&rows[id: \(id)])"
            case .modifyTitle(let id, let t): "retitle(&rows[id: \(id)], \(t))"
            }
        }
    }

    static func reduce(_ state: inout State, _ edit: Edit) {
        switch edit {
        case .bump(let id): state.rows[id: id]?.n += 1
        case .retitle(let id, let title): state.rows[id: id]?.title = title
        case .insert(let row, let at):
            if !state.rows.contains(id: row.id) { state.rows.insert(row, at: min(at, state.rows.count)) }
        case .remove(let id): _ = state.rows.remove(id: id)
        case .move(let a, let b):
            let n = state.rows.count
            if n > 0 { state.rows.move(from: a % n, to: b % n) }
        case .sortByN: state.rows.sort { ($0.n, $0.id) < ($1.n, $1.id) }
        case .sortByTitle: state.rows.sort { ($0.title, $0.id) < ($1.title, $1.id) }
        case .removeOdd: state.rows.removeAll { $0.n % 2 == 1 }
        case .append(let row): if !state.rows.contains(id: row.id) { state.rows.append(row) }
        case .replace(let rows): state.rows = IdentifiedList(rows)
        case .tag: state.tag += 1
        case .set(let row): state.rows[id: row.id] = row
        case .setNil(let id): state.rows[id: id] = nil
        case .modifyToNil(let id):
            func clear(_ row: inout Row?) { row = nil }
            clear(&state.rows[id: id])
        case .modifyTitle(let id, let title):
            func retitle(_ row: inout Row?) { row?.title = title }
            retitle(&state.rows[id: id])
        }
    }

    static func randomEdit(_ rng: inout SeededGenerator, ids: Int) -> Edit {
        let id = Int.random(in: 0 ..< ids, using: &rng)
        let row = Row(id: id, title: ["a", "b", "c"].randomElement(using: &rng)!, n: Int.random(in: 0 ..< 4, using: &rng))
        switch Int.random(in: 0 ..< 24, using: &rng) {
        case 0 ..< 5: return .bump(id: id)
        case 5: return .retitle(id: id, row.title)
        case 6, 7: return .insert(row, at: Int.random(in: 0 ..< 12, using: &rng))
        case 8, 9: return .remove(id: id)
        case 10, 11, 12: return .move(Int.random(in: 0 ..< 12, using: &rng), Int.random(in: 0 ..< 12, using: &rng))
        case 13: return .sortByN
        case 14: return .sortByTitle
        case 15: return .removeOdd
        case 16: return .append(row)
        case 17: return .replace((0 ..< Int.random(in: 0 ..< 6, using: &rng)).map { Row(id: $0 * 2, title: "r", n: $0) })
        case 18: return .set(row)
        case 19: return .setNil(id: id)
        case 20: return .modifyToNil(id: id)
        case 21: return .modifyTitle(id: id, row.title)
        default: return .tag
        }
    }

    @Test func rowsByIdMatchTheNaiveConsumerUnderStructuralEdits() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x1D11)
        for round in 0 ..< 40 {
            let ids = 10
            let initial = (0 ..< 6).map { Row(id: $0, title: ["a", "b", "c"][$0 % 3], n: $0 % 4) }
            let store = Store(state: State(Board(rows: IdentifiedList(initial), tag: 0)), reducer: Self.reduce)
            let fast = StateConsumer<State>()
            let naive = NaiveConsumer<State>()
            var fastLog: [String] = [], naiveLog: [String] = []
            var nextID = 0
            func both<T: Hashable>(_ name: String, _ select: @escaping (State) -> T) {
                fast.add(select) { (old: T?, new: T) in fastLog.append("\(name): \(String(describing: old)) -> \(new)") }
                nextID += 1
                naive.add(id: nextID, baselineIsNil: false, select: { AnyHashable(select($0)) }) { old, new in
                    let before = old.flatMap { $0.map { $0.base as! T } }
                    naiveLog.append("\(name): \(String(describing: before)) -> \(new!.base as! T)")
                }
            }
            for id in 0 ..< ids { both("row \(id)") { $0.rows[id: id] } }
            for id in [1, 4] {
                both("has \(id)") { $0.rows.contains(id: id) }
                both("index \(id)") { $0.rows.index(id: id) }
            }
            both("count") { $0.rows.count }
            both("isEmpty") { $0.rows.isEmpty }
            both("ids") { $0.rows.ids }
            both("last") { $0.rows.last }
            both("first") { $0.rows.first }
            both("third") { $0.rows.count > 2 ? $0.rows[2] : nil }
            both("all") { Array($0.rows) }
            both("tag") { $0.tag }
            let subscription = fast.connect(to: store)
            let naiveSubscription = store.subscribe { naive.consume(newState: $0) }
            naive.consume(newState: store.state)
            fastLog.removeAll(); naiveLog.removeAll()
            var steps: [String] = []
            for _ in 0 ..< 60 {
                let edit = Self.randomEdit(&rng, ids: ids)
                steps.append(edit.description)
                store.dispatch(edit)
                if fastLog.sorted() != naiveLog.sorted() {
                    Issue.record("seed \(rng.seed), round \(round), after \(steps):\nfast  \(fastLog)\nnaive \(naiveLog)")
                    return
                }
                fastLog.removeAll(); naiveLog.removeAll()
            }
            withExtendedLifetime((subscription, naiveSubscription)) {}
        }
    }
}

extension IdentifiedListDifferentialTests {
    /// A sort or a move keeps every id's element: consumers of rows by id
    /// are not even evaluated, consumers of the whole list are called.
    @Test func aReorderWakesOnlyWholeListReaders() {
        let rows = (0 ..< 50).map { Row(id: $0, title: "t\($0 % 7)", n: 50 - $0) }
        let store = Store(state: State(Board(rows: IdentifiedList(rows), tag: 0)), reducer: Self.reduce)
        let consumer = StateConsumer<State>()
        var calls = 0
        let byID = (0 ..< 20).map { id in consumer.add({ $0.rows[id: id] }) { (_: Row??, _: Row?) in calls += 1 } }
        let order = consumer.add({ $0.rows.ids }) { (_: [Int]?, _: [Int]) in calls += 100 }
        let subscription = consumer.connect(to: store)
        calls = 0
        let before = byID.map(\._evaluationCount)
        store.dispatch(.sortByN)
        store.dispatch(.move(3, 40))
        #expect(calls == 200, "the order consumer is called twice, no row by id")
        #expect(byID.map(\._evaluationCount) == before, "rows by id are not evaluated on a reorder")
        store.dispatch(.bump(id: 7))
        #expect(calls == 201)
        #expect(byID[7]._evaluationCount == before[7] + 1)
        withExtendedLifetime((subscription, order)) {}
    }
}

extension IdentifiedListDifferentialTests {
    /// The list's structure (its count, its ids in order) changes with an
    /// insertion, a removal or a reorder, not with a row's value: consumers
    /// of the count and the ids are not evaluated when a row is updated
    /// under its id, in place or by assignment, and are when a row is
    /// inserted, removed or moved.
    @Test func aRowUpdateDoesNotEvaluateTheListsStructure() {
        let rows = (0 ..< 50).map { Row(id: $0, title: "t\($0)", n: $0) }
        let store = Store(state: State(Board(rows: IdentifiedList(rows), tag: 0)), reducer: Self.reduce)
        let consumer = StateConsumer<State>()
        var calls: [String] = []
        let count = consumer.add({ $0.rows.count }) { (_: Int?, new: Int) in calls.append("count \(new)") }
        let ids = consumer.add({ $0.rows.ids }) { (_: [Int]?, new: [Int]) in calls.append("ids \(new.count)") }
        let row = consumer.add({ $0.rows[id: 7] }) { (_: Row??, new: Row?) in calls.append("row \(new?.n ?? -1)") }
        let subscription = consumer.connect(to: store)
        calls = []
        let before = (count._evaluationCount, ids._evaluationCount)
        store.dispatch(.bump(id: 7))
        store.dispatch(.modifyTitle(id: 7, "x"))
        store.dispatch(.set(Row(id: 7, title: "y", n: 70)))
        store.dispatch(.bump(id: 8))
        #expect(calls == ["row 8", "row 8", "row 70"])
        #expect(count._evaluationCount == before.0 && ids._evaluationCount == before.1, "a row update leaves the structure alone")
        store.dispatch(.remove(id: 3))
        store.dispatch(.insert(Row(id: 60, title: "n", n: 0), at: 0))
        store.dispatch(.move(0, 10))
        store.dispatch(.modifyToNil(id: 9))
        #expect(calls.suffix(7) == ["count 49", "ids 49", "count 50", "ids 50", "ids 50", "count 49", "ids 49"])
        withExtendedLifetime((subscription, count, ids, row)) {}
    }
}

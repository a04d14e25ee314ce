@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// Selectors that mutate a local copy of the state's list and then read
/// the copy: what they read depends on values the mutation looked at
/// (`removeAll(where:)`, `sort`) or on elements that moved to other
/// positions (an insertion, a removal), while their reads of the copy name
/// its structure or positions. The mutations record a read of the whole
/// list, so a write of any element's value reaches them.
@Suite struct MutatedCopyReadTests {
    struct Row: Identifiable, Hashable, Sendable {
        let id: Int
        var v: Int
    }

    struct App: Sendable {
        var rows: IdentifiedList<Row>
        var list: VersionedList<Int>
    }

    typealias State = Versioned<App>

    enum Action: Sendable { case setRow(Int, Int), modifyRow(Int, Int), setAt(Int, Int), bumpAt(Int) }

    static func makeStore() -> Store<State, Action> {
        let app = App(
            rows: IdentifiedList((0 ..< 6).map { Row(id: $0, v: $0) }),
            list: VersionedList(0 ..< 6))
        return Store(state: State(app)) { state, action in
            switch action {
            case .setRow(let id, let v): state.rows[id: id] = Row(id: id, v: v)   // _update: .elementValue
            case .modifyRow(let id, let v): state.rows[id: id]?.v = v           // _modify: .elementValue
            case .setAt(let i, let v): state.list[i] = v                          // .elementValue
            case .bumpAt(let i): state.list[i] += 100                             // _modify: .elementValue
            }
        }
    }

    /// Each selector reads values through a mutating algorithm of a local
    /// copy and then only the copy's structure or a position of it.
    static let selectors: [(String, @Sendable (State) -> AnyHashable)] = [
        ("rows.removeAll(where:).count", { s in var r = s.rows; r.removeAll { $0.v >= 3 }; return r.count }),
        ("rows.removeAll(where:).ids", { s in var r = s.rows; r.removeAll { $0.v >= 3 }; return r.ids }),
        ("rows.removeAll(where:).isEmpty", { s in var r = s.rows; r.removeAll { $0.v < 100 }; return r.isEmpty }),
        ("rows.sort.ids", { s in var r = s.rows; r.sort { ($0.v, $0.id) < ($1.v, $1.id) }; return r.ids }),
        ("rows.sort.index(id: 0)", { s in var r = s.rows; r.sort { ($0.v, $0.id) < ($1.v, $1.id) }; return r.index(id: 0) }),
        ("list.removeAll(where:).count", { s in var l = s.list; l.removeAll { $0 >= 3 }; return l.count }),
        ("list.removeAll(where:).isEmpty", { s in var l = s.list; l.removeAll { $0 < 100 }; return l.isEmpty }),
        ("list.sort.first", { s in var l = s.list; l.sort(); return l.first }),
        ("list.sort.last", { s in var l = s.list; l.sort(); return l.last }),
        ("list.insert.[3]", { s in var l = s.list; l.insert(-1, at: 0); return l[3] }),
        ("list.remove.[1]", { s in var l = s.list; l.remove(at: 0); return l[1] }),
        ("list.replaceSubrange.[2]", { s in var l = s.list; l.replaceSubrange(0 ..< 1, with: [7, 8]); return l[2] }),
    ]

    @Test func consumersOfACopysStructureAfterAValueReadingMutation() {
        let store = Self.makeStore()
        let consumer = StateConsumer<State>()
        var stale: [String] = []
        var handles: [Any] = []
        var delivered: [String: AnyHashable] = [:]
        for (name, select) in Self.selectors {
            handles.append(consumer.add({ select($0) }) { (_: AnyHashable?, new: AnyHashable) in delivered[name] = new })
        }
        let subscription = consumer.connect(to: store)
        for action: Action in [.setRow(0, 50), .modifyRow(1, 60), .setAt(0, 50), .bumpAt(1), .setAt(2, 9), .bumpAt(1)] {
            store.dispatch(action)
            for (name, select) in Self.selectors where delivered[name] != select(store.state) {
                stale.append("\(name) after \(action): has \(String(describing: delivered[name])), state gives \(select(store.state))")
                delivered[name] = select(store.state)
            }
        }
        #expect(stale.isEmpty, "\(stale.joined(separator: "\n"))")
        withExtendedLifetime((subscription, handles)) {}
    }

    @Test func derivedValueOfACopysCountAfterRemoveAllWhere() {
        let store = Self.makeStore()
        let compute: @Sendable (State) -> Int = { s in var r = s.rows; r.removeAll { $0.v >= 3 }; return r.count }
        let derived = Derived(compute)
        #expect(derived(store.state) == 3)
        store.dispatch(.setRow(0, 50))
        #expect(derived(store.state) == compute(store.state), "Derived memo kept after a row's value changed")
    }
}

/// A list's structure against its contents: every mutation path of both
/// list kinds (element writes by position, by id in place and through
/// `_modify`, with and without a throw; insertions, removals, moves,
/// sorts, range replacements, slice writes; undo and redo), and selectors
/// that read the structure, positions, ids or elements, each checked after
/// every step against a fresh evaluation on the store's state. Seeded;
/// `FASTSTORE_SEED` reproduces a failure.
@Suite struct ListStructureFuzzTests {
    typealias Row = MutatedCopyReadTests.Row
    typealias State = MutatedCopyReadTests.State
    struct Boom: Error {}

    enum Op: Sendable, CustomStringConvertible {
        case l(Int, Int, Int, Int), r(Int, Int, Int, Int)
        var description: String {
            switch self {
            case .l(let k, let a, let b, let c): "l\(k)(\(a),\(b),\(c))"
            case .r(let k, let a, let b, let c): "r\(k)(\(a),\(b),\(c))"
            }
        }
    }

    static func reduce(_ state: inout State, _ op: Op) {
        switch op {
        case .l(let k, let a, let b, let c):
            let n = state.list.count
            switch k {
            case 0: if n > 0 { state.list[a % n] = c }
            case 1: if n > 0 { state.list[a % n] += c }
            case 2: if n > 0 { state.list.swapAt(a % n, b % n) }
            case 3: state.list.reverse()
            case 4: state.list.append(c)
            case 5: state.list.insert(c, at: a % (n + 1))
            case 6: if n > 0 { state.list.remove(at: a % n) }
            case 7: state.list.removeAll { $0 % 3 == c % 3 }
            case 8: state.list.sort()
            case 9: let lo = a % (n + 1); state.list.replaceSubrange(lo ..< min(n, lo + b % 3), with: Array(repeating: c, count: c % 3))
            case 10: if n > 1 { let w = min(n / 2, 1 + b % 2); state.list[0 ..< w] = state.list[(n - w) ..< n] }
            case 11: if n > 2 { state.list[1 ..< n].sort() }
            case 12: if n > 0 { _ = state.list.partition { $0 % 2 == c % 2 } }
            case 13: if n > 0 { state.list.removeFirst(min(n, 1 + a % 2)) }
            case 14: if n > 0 { state.list.removeLast() }
            case 15: if n > 1 { state.list.swapAt(0, n - 1) }
            default: state.list.append(contentsOf: [c, c + 1])
            }
        case .r(let k, let a, let b, let c):
            let id = a % 10
            let n = state.rows.count
            switch k {
            case 0: if state.rows.contains(id: id) { state.rows[id: id] = Row(id: id, v: c) }
            case 1: state.rows[id: id]?.v = c
            case 2: state.rows[id: id] = Row(id: id, v: c)          // update or append
            case 3: state.rows[id: id] = nil
            case 4: func clear(_ r: inout Row?) { r = nil }; clear(&state.rows[id: id])
            case 5: func put(_ r: inout Row?) { r = Row(id: id, v: c) }; put(&state.rows[id: id])
            case 6: func f(_ r: inout Row?) throws { r = nil; throw Boom() }; try? f(&state.rows[id: id])
            case 7: func f(_ r: inout Row?) throws { r?.v = c; throw Boom() }; try? f(&state.rows[id: id])
            case 8: func f(_ r: inout Row?) throws { r = Row(id: id, v: c); throw Boom() }; try? f(&state.rows[id: id])
            case 9: if !state.rows.contains(id: id) { state.rows.insert(Row(id: id, v: c), at: b % (n + 1)) }
            case 10: _ = state.rows.remove(id: id)
            case 11: if n > 0 { state.rows.move(from: b % n, to: c % n) }
            case 12: state.rows.sort { ($0.v, $0.id) < ($1.v, $1.id) }
            case 13: state.rows.removeAll { $0.v % 3 == c % 3 }
            case 14: state.rows.replaceAll(with: (0 ..< (b % 5)).map { Row(id: ($0 * 3 + c) % 10, v: $0) }.reduce(into: [Row]()) { acc, r in if !acc.contains(where: { $0.id == r.id }) { acc.append(r) } })
            case 15: if n > 0 { state.rows.remove(at: b % n) }
            default: func f(_ r: inout Row?) { if let x = r { r = nil; r = Row(id: x.id, v: x.v + c) } }; f(&state.rows[id: id])
            }
        }
    }

    static let selectors: [(String, @Sendable (State) -> AnyHashable)] = [
        ("l.count", { $0.list.count }), ("l.isEmpty", { $0.list.isEmpty }), ("l.indices", { $0.list.indices }),
        ("l.first", { $0.list.first }), ("l.last", { $0.list.last }), ("l.endIndex", { $0.list.endIndex }),
        ("l.uc", { $0.list.underestimatedCount }), ("l.suffix2", { Array($0.list.suffix(2)) }),
        ("l.dropFirst2.count", { $0.list.dropFirst(2).count }), ("l.lastWhereEven", { $0.list.last { $0 % 2 == 0 } }),
        ("l.firstIndexOf3", { $0.list.firstIndex(of: 3) }), ("l.mid", { $0.list.isEmpty ? -1 : $0.list[$0.list.count / 2] }),
        ("l.reversed.first", { $0.list.reversed().first }), ("l.sortedSlice", { $0.list.count > 1 ? Array($0.list[1...].sorted()) : [] }),
        ("r.count", { $0.rows.count }), ("r.ids", { $0.rows.ids }), ("r.isEmpty", { $0.rows.isEmpty }),
        ("r.index3", { $0.rows.index(id: 3) }), ("r.index7", { $0.rows.index(id: 7) }), ("r.first", { $0.rows.first }),
        ("r.last.id", { $0.rows.last?.id }), ("r.indices", { $0.rows.indices }), ("r.suffix1", { $0.rows.suffix(1).map(\.id) }),
        ("r.row3", { $0.rows[id: 3] }), ("r.lastRow", { $0.rows.isEmpty ? nil : $0.rows[$0.rows.count - 1] }),
    ]

    @Test func fuzz() throws {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x5EED)
        for round in 0 ..< 30 {
            let app = MutatedCopyReadTests.App(
                rows: IdentifiedList((0 ..< 5).map { Row(id: $0 * 2, v: $0) }), list: VersionedList(0 ..< 6))
            let store = Store(state: State(app), reducer: Self.reduce)
            let history = StoreHistory(store)
            let consumer = StateConsumer<State>()
            var delivered: [String: AnyHashable] = [:]
            var handles: [Any] = []
            for (name, select) in Self.selectors {
                handles.append(consumer.add({ select($0) }) { (_: AnyHashable?, new: AnyHashable) in delivered[name] = new })
            }
            let subscription = consumer.connect(to: store)
            var steps: [String] = []
            for _ in 0 ..< 80 {
                let roll = Int.random(in: 0 ..< 20, using: &rng)
                if roll == 0, history.canUndo { try history.undo(); steps.append("undo") }
                else if roll == 1, history.canRedo { try history.redo(); steps.append("redo") }
                else {
                    let k = Int.random(in: 0 ..< 17, using: &rng)
                    let a = Int.random(in: 0 ..< 20, using: &rng), b = Int.random(in: 0 ..< 20, using: &rng), c = Int.random(in: 0 ..< 20, using: &rng)
                    let op: Op = Bool.random(using: &rng) ? .l(k, a, b, c) : .r(k, a, b, c)
                    steps.append(op.description)
                    store.dispatch(op)
                }
                for (name, select) in Self.selectors where delivered[name] != select(store.state) {
                    Issue.record("seed \(rng.seed), round \(round) \(name): has \(String(describing: delivered[name])) state \(select(store.state)) after \(steps.suffix(4))")
                    return
                }
            }
            withExtendedLifetime((subscription, handles, history)) {}
        }
    }
}

import Observation

/// A view that counts the rows of a filtered copy of the state's list is
/// told when a row's value changes what the filter keeps.
@Suite(.serialized) struct MutatedCopyObservationTests {
    @Test func anObservedCountOfAFilteredCopyIsTold() {
        let store = makeObservedStore(rows: 5)
        final class Flag: @unchecked Sendable { var fired = false }
        let flag = Flag()
        let before = withObservationTracking {
            var rows = store.state.rows
            rows.removeAll { $0.title.hasPrefix("x") }
            return rows.count
        } onChange: { flag.fired = true }
        #expect(before == 5)
        store.dispatch(.rename(2, "x2"))
        let after: Int = { var rows = store.state.rows; rows.removeAll { $0.title.hasPrefix("x") }; return rows.count }()
        #expect(after == 4)
        #expect(flag.fired, "the tracked count went 5 -> 4 and Observation was not told")
    }
}

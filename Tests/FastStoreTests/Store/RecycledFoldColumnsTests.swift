import FastStoreTestSupport
import Testing

@testable import FastStore

/// The fold columns of recycled list nodes (`_ListNode._copyFolds`): a
/// node the recycler hands out keeps its emptied columns, and takes a
/// copy's values in them when it folds the same summaries. Three lists of
/// one element type share the store's recycler: one with a fold, one with
/// two, one with none; seeded random writes, inserts and removals through
/// the store, each list's folds checked against folding its elements from
/// scratch after every dispatch, and its tree's fold columns checked whole
/// (`_invariantCheck`: none in the fold-less list, each branch's equal to
/// its children's) in builds with the internal checks; a few older states
/// kept (their nodes are never recycled, their columns never emptied or
/// written) and checked again; and the drains' copies did take spares.
@Suite struct RecycledFoldColumnsTests {
    struct Row: Equatable, Sendable {
        var n: Int
        var done: Bool
    }

    enum Open: CountingSummary {
        static func counts(_ row: Row) -> Bool { !row.done }
    }

    enum Total: ListSummary {
        static var identity: Int { 0 }
        static func summarize(_ row: Row) -> Int { row.n }
        static func combine(_ a: Int, _ b: Int) -> Int { a &+ b }
    }

    struct Lists: Sendable {
        var one: VersionedList<Row>
        var two: VersionedList<Row>
        var none: VersionedList<Row>
    }
    typealias State = Versioned<Lists>

    enum Edit: Sendable, CustomStringConvertible {
        case toggle(list: Int, at: Int)
        case set(list: Int, at: Int, Int)
        case insert(list: Int, at: Int, Row)
        case remove(list: Int, at: Int)

        var description: String {
            switch self {
            case .toggle(let l, let i): "toggle list \(l) [\(i)]"
            case .set(let l, let i, let n): "set list \(l) [\(i)] = \(n)"
            case .insert(let l, let i, let row): "insert into list \(l) at \(i): \(row)"
            case .remove(let l, let i): "remove list \(l) [\(i)]"
            }
        }
    }

    static func apply(_ edit: Edit, to list: inout VersionedList<Row>) {
        switch edit {
        case .toggle(_, let i): list[i].done.toggle()
        case .set(_, let i, let n): list[i].n = n
        case .insert(_, let i, let row): list.insert(row, at: i)
        case .remove(_, let i): list.remove(at: i)
        }
    }

    static func apply(_ edit: Edit, to list: inout [Row]) {
        switch edit {
        case .toggle(_, let i): list[i].done.toggle()
        case .set(_, let i, let n): list[i].n = n
        case .insert(_, let i, let row): list.insert(row, at: i)
        case .remove(_, let i): list.remove(at: i)
        }
    }

    static func list(of edit: Edit) -> Int {
        switch edit {
        case .toggle(let l, _), .set(let l, _, _), .insert(let l, _, _), .remove(let l, _): l
        }
    }

    static func reduce(_ state: inout State, _ edit: Edit) {
        switch list(of: edit) {
        case 0: apply(edit, to: &state.one)
        case 1: apply(edit, to: &state.two)
        default: apply(edit, to: &state.none)
        }
    }

    @Test func recycledNodesFoldWhatTheirTreesHold() {
        var generator = SeededGenerator.fromEnvironment(fallback: 0xF0_1D_C0)
        let seed = generator.seed
        let count = 3_000
        var plain = (0 ..< 3).map { list in (0 ..< count).map { Row(n: $0 * (list + 1), done: $0 % 3 == 0) } }
        let store = Store(
            state: State(Lists(
                one: VersionedList(plain[0], folds: [Open.self]),
                two: VersionedList(plain[1], folds: [Total.self, Open.self]),
                none: VersionedList(plain[2]))),
            reducer: Self.reduce)
        /// Folds of a state as one comparable value: each list's open
        /// count, and the second list's total.
        func folds(of state: State) -> [Int] {
            [state.one.fold(Open.self), state.two.fold(Open.self), state.none.fold(Open.self), state.two.fold(Total.self)]
        }
        func naiveFolds(of lists: [[Row]]) -> [Int] {
            lists.map { $0.filter { !$0.done }.count } + [lists[1].reduce(0) { $0 &+ $1.n }]
        }
        var kept: [(state: State, folds: [Int], step: Int)] = []
        for step in 0 ..< 1_500 {
            let list = Int.random(in: 0 ..< 3, using: &generator)
            let size = plain[list].count
            let edit: Edit
            switch Int.random(in: 0 ..< 10, using: &generator) {
            case 0 where size < count + 200:
                edit = .insert(list: list, at: Int.random(in: 0 ... size, using: &generator),
                               Row(n: Int.random(in: 0 ..< 100, using: &generator), done: Bool.random(using: &generator)))
            case 1 where size > count - 200:
                edit = .remove(list: list, at: Int.random(in: 0 ..< size, using: &generator))
            case 2 ..< 5:
                edit = .set(list: list, at: Int.random(in: 0 ..< size, using: &generator), Int.random(in: 0 ..< 100, using: &generator))
            default:
                edit = .toggle(list: list, at: Int.random(in: 0 ..< size, using: &generator))
            }
            Self.apply(edit, to: &plain[list])
            store.dispatch(edit)
            let state = store.state
            let expected = naiveFolds(of: plain)
            guard Array(state.one) == plain[0], Array(state.two) == plain[1], Array(state.none) == plain[2] else {
                Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step), \(edit): the lists' elements differ from the model")
                return
            }
            guard folds(of: state) == expected else {
                Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step), \(edit): folds \(folds(of: state)), expected \(expected)")
                return
            }
            // NB: a few, so that most replaced nodes are still recycled.
            if Int.random(in: 0 ..< 16, using: &generator) == 0 { kept.append((state, expected, step)) }
            if kept.count > 6 { kept.remove(at: Int.random(in: 0 ..< kept.count, using: &generator)) }
            for entry in kept where step % 10 == 0 && folds(of: entry.state) != entry.folds {
                Issue.record("seed \(seed) (FASTSTORE_SEED=\(seed)): after step \(step), the folds of the state kept at step \(entry.step) changed")
                return
            }
            #if FASTSTORE_INTERNAL_CHECKS
            state.one._invariantCheck()
            state.two._invariantCheck()
            state.none._invariantCheck()
            #endif
        }
        #expect(store._recycler.reuses > 1_000, "the drains' copies took spare nodes (\(store._recycler.reuses) reuses)")
    }
}

import FastStoreTestSupport
import Foundation
import Testing

@testable import FastStore

/// Lent items (`_ListNode+Lending.swift`): in a draining store, the path
/// copy of an element write borrows the replaced node's items and the
/// replaced node hands them over at the settle. Checked against plain arrays
/// on random batches that mix element writes with structural writes, with
/// older states kept and dropped: every state keeps its values, and every
/// value is alive exactly while a state holds it (one reference missing
/// would free a value still held; one too many would keep it).
@Suite struct NodeLendingTests {
    /// Live tokens of one test (not process-wide).
    final class Lives: @unchecked Sendable {
        private let lock = NSLock()
        private var _count = 0
        func add(_ n: Int) { lock.lock(); _count += n; lock.unlock() }
        var count: Int { lock.lock(); defer { lock.unlock() }; return _count }
    }

    final class Token: @unchecked Sendable {
        let lives: Lives
        init(_ lives: Lives) {
            self.lives = lives
            lives.add(1)
        }
        deinit { lives.add(-1) }
    }

    /// A row: its token made by the reducer, with the row.
    struct Row: Equatable, Sendable {
        var value: Int
        var label: String
        var token: Token
        static func == (a: Row, b: Row) -> Bool { a.value == b.value && a.label == b.label && a.token === b.token }
    }

    struct Item: Identifiable, Sendable {
        let id: Int
        var value: Int
        var token: Token
    }

    /// What the model keeps of a row: its value and label.
    struct Plain: Equatable {
        var value: Int
        var label: String
        init(_ value: Int) {
            self.value = value
            self.label = "row \(value)"
        }
    }

    struct Doc: Sendable {
        var rows: VersionedList<Row>
        var items: IdentifiedList<Item>
    }
    typealias State = Versioned<Doc>

    struct Model {
        var rows: [Plain]
        var items: [Int]  // item `i`'s value
    }

    /// One action. Its rows and items get their tokens in the reducer, so
    /// that only the states hold tokens.
    enum Edit: Sendable, CustomStringConvertible {
        case set(Int, Int)
        case bump(Int)  // rows[i].value += 1, in place
        case relabel(Int)  // rows[i].label += "+", in place: a borrowed element's string must not be written in place
        case twice(Int, Int)  // two element writes in one action
        case bumpThenInsert(Int, Int)  // an element write, then an insertion in the same action
        case insert(Int, Int)
        case remove(Int)
        case replaceAll([Int])
        case setItem(Int, Int)  // items[id:] = item
        case bumpItem(Int)  // items[id:]?.value += 1
        var description: String {
            switch self {
            case .set(let i, let v): "rows[\(i)] = \(v)"
            case .bump(let i): "rows[\(i)].value += 1"
            case .relabel(let i): "rows[\(i)].label += +"
            case .twice(let i, let j): "rows[\(i)] and rows[\(j)] bumped"
            case .bumpThenInsert(let i, let v): "rows[\(i)] bumped, \(v) inserted at \(i)"
            case .insert(let i, let v): "insert \(v) at \(i)"
            case .remove(let i): "remove at \(i)"
            case .replaceAll(let rows): "rows = \(rows.count) rows"
            case .setItem(let id, let v): "items[id: \(id)] = \(v)"
            case .bumpItem(let id): "items[id: \(id)].value += 1"
            }
        }
    }

    static func reduce(_ state: inout State, _ edit: Edit, _ lives: Lives) {
        func row(_ v: Int) -> Row { Row(value: v, label: "row \(v)", token: Token(lives)) }
        switch edit {
        case .set(let i, let v): state.rows[i] = row(v)
        case .bump(let i): state.rows[i].value += 1
        case .relabel(let i): state.rows[i].label += "+"
        case .twice(let i, let j):
            state.rows[i].value += 1
            state.rows[j].value += 1
        case .bumpThenInsert(let i, let v):
            state.rows[i].value += 1
            state.rows.insert(row(v), at: i)
        case .insert(let i, let v): state.rows.insert(row(v), at: i)
        case .remove(let i): state.rows.remove(at: i)
        case .replaceAll(let values): state.rows = VersionedList(values.map(row))
        case .setItem(let id, let v): state.items[id: id] = Item(id: id, value: v, token: Token(lives))
        case .bumpItem(let id): state.items[id: id]?.value += 1
        }
    }

    static func apply(_ edit: Edit, to model: inout Model) {
        switch edit {
        case .set(let i, let v): model.rows[i] = Plain(v)
        case .bump(let i): model.rows[i].value += 1
        case .relabel(let i): model.rows[i].label += "+"
        case .twice(let i, let j):
            model.rows[i].value += 1
            model.rows[j].value += 1
        case .bumpThenInsert(let i, let v):
            model.rows[i].value += 1
            model.rows.insert(Plain(v), at: i)
        case .insert(let i, let v): model.rows.insert(Plain(v), at: i)
        case .remove(let i): model.rows.remove(at: i)
        case .replaceAll(let values): model.rows = values.map(Plain.init)
        case .setItem(let id, let v): model.items[id] = v
        case .bumpItem(let id): model.items[id] += 1
        }
    }

    /// A random edit valid on `model` (rows never fewer than 2).
    static func randomEdit(_ model: Model, using rng: inout SeededGenerator) -> Edit {
        let n = model.rows.count
        let i = Int.random(in: 0 ..< n, using: &rng)
        // NB: mostly writes near one another, so that one batch writes one
        // leaf (and one branch) again after lending it.
        let near = Swift.min(n - 1, i + Int.random(in: 0 ... 3, using: &rng))
        let v = Int.random(in: 0 ..< 1_000_000, using: &rng)
        switch Int.random(in: 0 ..< 100, using: &rng) {
        case 0 ..< 20: return .bump(i)
        case 20 ..< 30: return .relabel(i)
        case 30 ..< 45: return .set(i, v)
        case 45 ..< 55: return .twice(i, near)
        case 55 ..< 62: return .bumpThenInsert(i, v)
        case 62 ..< 70: return .insert(i, v)
        case 70 ..< 78: return n > 2 ? .remove(i) : .bump(i)
        case 78 ..< 80: return .replaceAll((0 ..< Int.random(in: 2 ..< 400, using: &rng)).map { v + $0 })
        case 80 ..< 90: return .setItem(Int.random(in: 0 ..< model.items.count, using: &rng), v)
        default: return .bumpItem(Int.random(in: 0 ..< model.items.count, using: &rng))
        }
    }

    static func same(_ state: State, _ model: Model) -> Bool {
        state.rows.count == model.rows.count
            && zip(state.rows, model.rows).allSatisfy { $0.value == $1.value && $0.label == $1.label }
            && state.items.count == model.items.count
            && zip(state.items, model.items.indices).allSatisfy { $0.id == $1 && $0.value == model.items[$1] }
    }

    /// The distinct tokens `states` hold: exactly the live ones.
    static func tokens(_ states: [State]) -> Int {
        var seen = Set<ObjectIdentifier>()
        for state in states {
            for row in state.rows { seen.insert(ObjectIdentifier(row.token)) }
            for item in state.items { seen.insert(ObjectIdentifier(item.token)) }
        }
        return seen.count
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6], [false, true])
    func randomBatchesAgainstArrays(seed: UInt64, mainStore: Bool) async {
        await Self.run(seed: seed, mainStore: mainStore)
    }

    @MainActor
    static func run(seed: UInt64, mainStore: Bool) {
        var rng = SeededGenerator(seed: seed)
        let lives = Lives()
        do {
            var model = Model(rows: (0 ..< 700).map(Plain.init), items: Array(0 ..< 300))
            // NB: made in the store's initializer, so that no variable holds
            // the first state's tokens.
            func initial() -> State {
                State(Doc(
                    rows: VersionedList((0 ..< 700).map { Row(value: $0, label: "row \($0)", token: Token(lives)) }),
                    items: IdentifiedList((0 ..< 300).map { Item(id: $0, value: $0, token: Token(lives)) })))
            }
            let reducer: (inout State, Edit) -> Void = { Self.reduce(&$0, $1, lives) }
            // A consumer keeping the rows (its `(old, new)`), as a list screen does.
            let consumer = StateConsumer<State>()
            var shown = 0
            consumer.add({ $0.rows }) { (_: VersionedList<Row>?, new: VersionedList<Row>) in shown = new.count }
            let dispatch: ([Edit]) -> Void
            let state: () -> State
            let subscription: StoreSubscription
            if mainStore {
                let main = MainStore<State, Edit>(state: initial(), reducer: reducer)
                dispatch = { main.dispatch(contentsOf: $0) }
                state = { main.state }
                subscription = consumer.connect(to: main)
            } else {
                let store = Store<State, Edit>(state: initial(), reducer: reducer)
                dispatch = { store.dispatch(contentsOf: $0) }
                state = { store.state }
                subscription = consumer.connect(to: store)
            }
            var kept: [(state: State, model: Model)] = []
            for step in 0 ..< 300 {
                var edits: [Edit] = []
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &rng) {
                    let edit = randomEdit(model, using: &rng)
                    apply(edit, to: &model)
                    edits.append(edit)
                }
                dispatch(edits)
                let now = state()
                #expect(same(now, model), "seed \(seed) step \(step): \(edits)")
                #expect(shown == model.rows.count, "seed \(seed) step \(step): the list screen was told")
                if Int.random(in: 0 ..< 4, using: &rng) == 0 { kept.append((now, model)) }
                if kept.count > 6 { kept.remove(at: Int.random(in: 0 ..< kept.count, using: &rng)) }
                for (k, old) in kept.enumerated() where !same(old.state, old.model) {
                    Issue.record("seed \(seed) step \(step): kept state \(k) changed")
                }
                let held = tokens([now] + kept.map(\.state))
                #expect(lives.count == held, "seed \(seed) step \(step): \(lives.count) live tokens, the states hold \(held) (\(edits))")
            }
            subscription.cancel()
        }
        #expect(lives.count == 0, "seed \(seed): every token released with the stores")
    }

    /// One value handed from a reducer to whoever takes it: once taken, the
    /// taker holds the only reference the box had.
    final class Handoff<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value?
        init(_ value: Value? = nil) { self.value = value }
        func put(_ value: Value) { lock.lock(); self.value = value; lock.unlock() }
        func take() -> Value? { lock.lock(); defer { lock.unlock() }; let v = value; value = nil; return v }
    }

    /// A label on the heap with room to grow, so that an append writes its
    /// buffer in place when nothing else holds it.
    static func roomyLabel(_ i: Int) -> String {
        var label = "row \(i), a label long enough to live on the heap"
        label.reserveCapacity(256)
        return label
    }

    /// A list holding borrowed nodes, kept by the reducer past its action
    /// (the state letting go of it, so the keeper holds the only reference
    /// the program has) and written by a later action of the same batch,
    /// before the settle. The recycler holds every borrower until the
    /// settle, so the write copies: the state published before the batch
    /// keeps its labels. (Written in place, the lent label's buffer, still
    /// the published state's, would grow under it.) Dropped before the
    /// settle, the kept list releases only what it owns.
    @Test(arguments: [false, true])
    func aListKeptPastItsActionIsCopiedWhereALaterActionWritesIt(dropsIt: Bool) {
        enum Step: Sendable { case bump(Int), keep, appendToKept(Int), drop }
        let lives = Lives()
        let kept = Handoff<VersionedList<Row>>()
        let rootWasShared = Handoff<Bool>()
        for i in [3, 57, 120, 198] {
            // NB: the labels are made in place, so that only the store's
            // state holds their buffers.
            let store = Store<Versioned<Doc>, Step>(
                state: Versioned(
                    Doc(
                        rows: VersionedList((0 ..< 200).map { Row(value: 0, label: Self.roomyLabel($0), token: Token(lives)) }),
                        items: IdentifiedList([])
                    )
                )
            ) { state, step in
                switch step {
                case .bump(let i):
                    state.rows[i].value += 1  // its path borrowed
                case .keep:
                    kept.put(state.rows)
                    state.rows = VersionedList([])
                case .appendToKept(let i):
                    guard var mine = kept.take() else { return }
                    // NB: why the write copies: the recycler holds the
                    // borrowing root until the settle.
                    rootWasShared.put(!isKnownUniquelyReferenced(&mine._root))
                    mine[i].label += "!"  // a lent item of the borrowing leaf
                    mine[i].value += 1_000
                    kept.put(mine)
                case .drop:
                    _ = kept.take()
                }
            }
            let before = store.state
            store.dispatch(contentsOf: [.bump(i), .keep, .appendToKept(i + 1)] + (dropsIt ? [.drop] : []))
            #expect(store.state.rows.isEmpty)
            #expect(rootWasShared.take() == true, "a borrowing root held by the list alone before the settle")
            for (j, row) in before.rows.enumerated() {
                #expect(row.label == Self.roomyLabel(j), "published row \(j) changed under its state: \(row.label)")
                #expect(row.value == 0, "published row \(j): \(row.value)")
            }
            let mine = kept.take()
            #expect(mine?.count == (dropsIt ? nil : 200))
            if let mine {
                #expect(mine[i].value == 1)
                #expect(mine[i + 1].value == 1_000)
                #expect(mine[i + 1].label == Self.roomyLabel(i + 1) + "!")
            }
        }
        #expect(lives.count == 0, "every token released")
    }

    /// A borrower that stops borrowing (a second write in its leaf makes
    /// its slots explicit) leaves its lender claimed by the drain until the
    /// settle: another store's drain (two stores' states may share the
    /// node) cannot lend it meanwhile, and so cannot find its own borrower
    /// resolved by this drain's settle. The settle lets it go.
    @Test func aLenderWhoseBorrowerStoppedStaysClaimedUntilTheSettle() {
        let lives = Lives()
        let lenders = Handoff<[_ListNode<Row>]>()
        let claimed = Handoff<[Bool]>()
        do {
            let store = Store<Versioned<Doc>, Int>(
                state: Versioned(
                    Doc(
                        rows: VersionedList((0 ..< 400).map { Row(value: 0, label: "row \($0)", token: Token(lives)) }),
                        items: IdentifiedList([])))
            ) { state, i in
                var leaf = state.rows._root
                var offset = i
                while leaf.height > 0 {
                    let (k, o) = leaf.child(containing: offset)
                    (leaf, offset) = (leaf.children[k], o)
                }
                state.rows[i].value += 1  // its leaf lent
                state.rows[i + 1].value += 1  // the borrower's slots become explicit: it stops borrowing
                claimed.put((claimed.take() ?? []) + [leaf._header.pointee.pair != nil])
                lenders.put((lenders.take() ?? []) + [leaf])
            }
            for i in [0, 100, 398] { store.dispatch(i) }
            #expect(claimed.take() == [true, true, true], "claimed by the drain until the settle")
            for leaf in lenders.take() ?? [] {
                #expect(leaf._header.pointee.pair == nil, "let go at the settle")
            }
            #expect(store.state.rows.count == 400)
        }
        #expect(lives.count == 0, "every token released")
    }

    /// A list holding borrowed nodes, handed by the reducer to another
    /// thread before the settle (the state no longer holding it, the other
    /// thread taking the only reference the program has): written and
    /// dropped there while the store settles and drains again. The other
    /// threads copy what they write (the recycler holds every borrower
    /// until the settle), the store's states never change under them, and
    /// every token is released once nothing holds it. Run under
    /// ThreadSanitizer in CI. (It reported no race on a build without the
    /// recycler's hold either: the test above checks the hold itself.)
    @Test func listsSentAwayBeforeTheSettleAreCopiedWhereTheyAreWritten() {
        let lives = Lives()
        let group = DispatchGroup()
        let sent = Lives()  // lists written elsewhere
        do {
            let rows = (0 ..< 400).map { Row(value: 0, label: "row \($0)", token: Token(lives)) }
            let store = Store<Versioned<Doc>, Int>(
                state: Versioned(Doc(rows: VersionedList(rows), items: IdentifiedList([])))
            ) { state, i in
                // An element write (its path borrowed), then the list sent
                // away: written and dropped on another thread, maybe before
                // this drain settles.
                state.rows[i].value += 1
                let expected = state.rows[i].value &+ 1_000
                // NB: the state lets go of the list it wrote, and the other
                // thread takes it out of the box: it holds the only
                // reference to the borrowing nodes the program has.
                let away = Handoff(state.rows)
                state.rows = VersionedList(Array(state.rows))
                DispatchQueue.global().async(group: group) {
                    guard var mine = away.take() else { return }
                    mine[i].value += 1_000
                    mine[(i &+ 1) % mine.count].label += "!"
                    mine.insert(Row(value: -1, label: "away", token: Token(lives)), at: i)
                    if mine[i &+ 1].value == expected { sent.add(1) }
                }
            }
            for k in 0 ..< 2_000 { store.dispatch((k &* 7) % 400) }
            group.wait()
            let state = store.state
            #expect(sent.count == 2_000, "every list sent away was written there, apart")
            #expect(state.rows.count == 400)
            for (i, row) in state.rows.enumerated() {
                #expect(row.value == 5 && row.label == "row \(i)", "row \(i): \(row.value) \(row.label)")
            }
        }
        #expect(lives.count == 0, "every token released")
    }
}

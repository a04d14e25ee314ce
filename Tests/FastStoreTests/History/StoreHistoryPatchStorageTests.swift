import Dispatch
import Foundation
@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// `StoreHistory` with `.patches` storage (and with whole states kept every
/// few entries, so that rebuilds start from kept states too) checked against
/// the same moves on a history that keeps whole states (`.states`, the
/// reference), on seeded random Codable trees with random mutations, undos,
/// redos, jumps (kept, evicted and beyond the newest) and eviction; and
/// the watchers of the patch-kept store against the naive consumer at each
/// step (`FASTSTORE_SEED` reproduces one run, `FASTSTORE_RUNS` sets how many).
// NB: the suite's name leaves out "History": CI's ThreadSanitizer step
// picks suites by name, and this one is single-threaded (the concurrent test
// is `StoreHistoryPatchConcurrencyTests`).
@Suite struct PatchKeptUndoDifferentialTests {
    struct Mutate: Sendable {
        let seed: UInt64
    }

    static func reduce(_ state: inout CodableState, _ action: Mutate) {
        var rng = SeededGenerator(seed: action.seed)
        for _ in 0 ..< Int.random(in: 1...3, using: &rng) { CodableTreeGen.mutate(&state, &rng) }
    }

    @Test func patchKeptHistoryMovesLikeTheStateKeptOne() {
        let seeds: [UInt64] = environmentSeed.map { [$0] }
            ?? (0 ..< UInt64(environmentRuns(fallback: 8))).map { 0x9A7C_0000 &+ $0 }
        for seed in seeds {
            if !run(seed: seed) { break }
        }
    }

    /// Returns `false` at the first difference.
    private func run(seed: UInt64) -> Bool {
        var rng = SeededGenerator(seed: seed)
        let initial = CodableTreeGen.state(&rng)
        let checkpointEvery = Int.random(in: 0...9, using: &rng)
        let limit = Int.random(in: 5...60, using: &rng)
        let store = Store(state: initial, reducer: Self.reduce)
        let reference = Store(state: initial, reducer: Self.reduce)
        let history = StoreHistory(store, limit: .entries(limit), storage: checkpointEvery == 0 ? .patches : ._patches(checkpointEvery: checkpointEvery))
        let referenceHistory = StoreHistory(reference, limit: .entries(limit))
        let context = "seed \(seed) (FASTSTORE_SEED=\(seed)), checkpointEvery \(checkpointEvery), limit \(limit)"

        // Watchers of the patch-kept store: one consumer per screen (each
        // connected on its own), a shared one, and the naive reference.
        var fastLog: [String] = [], naiveLog: [String] = []
        let naive = NaiveConsumer<CodableState>()
        let shared = StateConsumer<CodableState>()
        var screens: [StateConsumer<CodableState>] = []
        var nextID = 0
        func watch<T: Hashable>(_ name: String, _ select: @escaping (CodableState) -> T) {
            let screen = StateConsumer<CodableState>()
            screen.add(select) { (old: T?, new: T) in fastLog.append("screen \(name): \(String(describing: old)) -> \(new)") }
            screens.append(screen)
            shared.add(select) { (old: T?, new: T) in fastLog.append("shared \(name): \(String(describing: old)) -> \(new)") }
            for kind in ["screen", "shared"] {
                nextID += 1
                naive.add(id: nextID, baselineIsNil: false, select: { AnyHashable(select($0)) }) { old, new in
                    let before = old.flatMap { $0.map { $0.base as! T } }
                    naiveLog.append("\(kind) \(name): \(String(describing: before)) -> \(new!.base as! T)")
                }
            }
        }
        watch("name") { $0.name }
        watch("count") { $0.count }
        watch("leaf") { $0.mid.leaf.a }
        watch("numbers") { $0.mid.numbers.count }
        watch("spare") { $0.spare?.flag }
        watch("rows") { $0.rows.count }
        watch("ids") { $0.rows.ids }
        for id in 1 ... 6 { watch("row \(id)") { $0.rows[id: id] } }
        watch("leaves") { $0.leaves.count }
        for key in ["k0", "k3", "k7"] { watch("score \(key)") { $0.scores[key] } }
        var subscriptions = screens.map { $0.connect(to: store) }
        subscriptions.append(shared.connect(to: store))
        naive.consume(newState: store.state)
        subscriptions.append(store.subscribe { naive.consume(newState: $0) })
        var published: [CodableState] = []
        subscriptions.append(store.subscribe { published.append($0) })
        defer { subscriptions.forEach { $0.cancel() } }
        fastLog.removeAll(); naiveLog.removeAll()

        var moves = 0
        for step in 0 ..< 160 {
            let what: String
            if step < 20 || Int.random(in: 0 ..< 3, using: &rng) == 0 {
                let action = Mutate(seed: rng.next())
                store.dispatch(action)
                reference.dispatch(action)
                what = "mutation"
            } else {
                let kept = referenceHistory.indices
                let target: Int
                switch Int.random(in: 0 ..< 5, using: &rng) {
                case 0: target = history.currentIndex - 1
                case 1: target = history.currentIndex + 1
                case 2: target = kept.lowerBound - Int.random(in: 0...3, using: &rng)
                default: target = Int.random(in: kept, using: &rng)
                }
                let result = outcome { try history.jump(to: target) }
                let expected = outcome { try referenceHistory.jump(to: target) }
                #expect(result == expected, "\(context), step \(step): jump to \(target)")
                if result == "moved" { moves += 1 }
                what = "jump to \(target) of \(kept)"
            }
            let where_ = "\(context), step \(step) (\(what))"
            #expect(store.state == reference.state, "\(where_): the states differ")
            #expect(history.indices == referenceHistory.indices && history.currentIndex == referenceHistory.currentIndex,
                    "\(where_)")
            if let last = published.last { #expect(last == store.state, "\(where_): a subscriber was not told") }
            published.removeAll()
            let probe = Int.random(in: history.indices.lowerBound - 1 ... history.indices.upperBound + 1, using: &rng)
            #expect(history[probe]?.state == referenceHistory[probe]?.state, "\(where_): entry \(probe)")
            #expect(history[probe]?.actions.map(\.seed) == referenceHistory[probe]?.actions.map(\.seed), "\(where_)")
            if fastLog.sorted() != naiveLog.sorted() {
                Issue.record("\(where_): the consumers differ from the naive one\nfast  \(fastLog.sorted())\nnaive \(naiveLog.sorted())")
                return false
            }
            fastLog.removeAll(); naiveLog.removeAll()
            if store.state != reference.state { return false }
        }
        #expect(moves > 40, "\(context)")
        // Every kept entry rebuilds to the reference's state.
        for index in history.indices {
            #expect(history[index]?.state == referenceHistory[index]?.state, "\(context): entry \(index)")
        }
        return true
    }

    @Test func undoRedoAndJumpOnTheTodoShape() throws {
        let store = Store(state: makeCodableTodos(), reducer: codableTodosReducer)
        let history = StoreHistory(store, storage: .patches)
        for id in 0 ..< 10 { store.dispatch(.toggle(id)) }
        store.dispatch(.rename(3, "three"))
        #expect(history.indices == 0 ... 11)
        try history.undo()
        #expect(store.state.rows[id: 3]?.title == "row 3")
        try history.jump(to: 2)
        #expect(store.state.rows.map(\.done) == [true, true] + Array(repeating: false, count: 18))
        try history.redo()
        #expect(store.state.rows[id: 2]?.done == true)
        #expect(history[7]?.state.rows.filter(\.done).count == 7)
        #expect(history[0]?.state == makeCodableTodos())
        try history.jump(to: 11)
        #expect(store.state.rows[id: 3]?.title == "three" && store.state.rows.allSatisfy(\.done) == false)
        store.dispatch(.toggle(19))
        #expect(history.indices == 0 ... 12 && !history.canRedo)
        #expect(history[11]?.actions == [.rename(3, "three")])
    }

}

@Suite struct StoreHistoryPatchConcurrencyTests {
    /// Four threads dispatch while two others read entries; the patch-kept
    /// history then holds, entry by entry, the states a state-kept history
    /// of the same store recorded (TSan runs it).
    @Test func concurrentRecordingAndReading() throws {
        let store = Store(state: makeCodableTodos(), reducer: codableTodosReducer)
        let history = StoreHistory(store, limit: .entries(500), storage: .patches)
        let reference = StoreHistory(store, limit: .entries(500))
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            if worker < 4 {
                for k in 0 ..< 30 { store.dispatch(.toggle((worker * 5 + k) % 20)) }
            } else {
                for _ in 0 ..< 20 {
                    let kept = history.indices
                    _ = history[kept.upperBound - (kept.upperBound - kept.lowerBound) / 8]
                }
            }
        }
        #expect(history.indices == reference.indices)
        #expect(history[history.indices.upperBound - 3]?.state == reference[history.indices.upperBound - 3]?.state)
        // Entry by entry, back from the newest (one patch per undo).
        while history.canUndo {
            try history.undo()
            #expect(store.state == reference[history.currentIndex]?.state, "undo to \(history.currentIndex)")
        }
        #expect(store.state == makeCodableTodos())
    }

    /// A history made while another thread dispatches: a batch published
    /// right after the subscription waits until entry 0 is recorded (it
    /// crashed on a nil `_currentState` before the fix; from a review).
    @Test func historiesMadeWhileAnotherThreadDispatches() async throws {
        let store = Store(state: RCounter()) { (s: inout RCounter, _: RInc) in s.n += 1 }
        let stop = ManagedFlag()
        let thread = Thread { while !stop.value { store.dispatch(.inc) } }
        thread.start()
        let deadline = ContinuousClock.now + .seconds(2)
        var made = 0
        while ContinuousClock.now < deadline {
            let history = StoreHistory(store, storage: .patches)
            _ = history.currentIndex
            made += 1
        }
        stop.value = true
        #expect(made > 0)
    }
}

/// "moved", or the error's description.
private func outcome(_ move: () throws -> Void) -> String {
    do {
        try move()
        return "moved"
    } catch {
        return "\(error)"
    }
}

struct CodableTodo: Codable, Hashable, Sendable, Identifiable {
    var id: Int
    var title: String
    var done = false
}

struct CodableTodos: Codable, Hashable, Sendable {
    var rows: IdentifiedList<Versioned<CodableTodo>>
    var filter = "all"
}

enum CodableTodosAction: Hashable, Sendable {
    case toggle(Int)
    case rename(Int, String)
}

func codableTodosReducer(_ state: inout Versioned<CodableTodos>, _ action: CodableTodosAction) {
    switch action {
    case .toggle(let id): state.rows[id: id]!.done.toggle()
    case .rename(let id, let title): state.rows[id: id]!.title = title
    }
}

func makeCodableTodos(_ n: Int = 20) -> Versioned<CodableTodos> {
    Versioned(CodableTodos(rows: IdentifiedList((0 ..< n).map { Versioned(CodableTodo(id: $0, title: "row \($0)")) })))
}

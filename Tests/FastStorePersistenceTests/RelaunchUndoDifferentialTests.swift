import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import Testing

/// Undo across relaunches against a full-copy model: seeded sessions of
/// random dispatches and moves, each ending with a close and a reopen.
/// Some sessions dispatch before making the history (an entry without
/// actions for the difference), some make none and save a batch (the next
/// history starts anew). At every step the store's state, the entries, and
/// per-screen consumers (one connected `StateConsumer` each) against the
/// naive consumer are checked.
@Suite struct RelaunchUndoDifferentialTests {
    static var seeds: [UInt64] {
        if let seed = ProcessInfo.processInfo.environment["FASTSTORE_SEED"].flatMap(UInt64.init) { return [seed] }
        return [1, 2, 3, 4]
    }

    @Test(arguments: seeds)
    func relaunchesAgainstAFullCopyModel(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let path = temporaryDirectory("relaunch\(seed)").appendingPathComponent("state.sqlite").path
        let limit = Int.random(in: 6 ... 30, using: &rng)
        let context = "seed \(seed) (FASTSTORE_SEED=\(seed)), limit \(limit)"

        // The model: every kept entry's whole state, numbered from `first`.
        var first = 0, current = 0
        var entries: [S] = [CrashModel.initial()]
        func record(_ state: S) {
            entries.removeSubrange((current - first + 1)...)
            entries.append(state)
            current += 1
            while entries.count > limit { entries.removeFirst(); first += 1 }
        }
        var modelState: S { entries[current - first] }
        /// Dispatches `action` as a batch of its own, and records its state.
        func dispatch(_ action: CrashModel.Action, to store: Store<S, CrashModel.Action>) {
            store.dispatch(action)
            store.waitUntilIdle()
            var state = modelState
            CrashModel.reduce(&state, action)
            record(state)
        }
        var nextID = 1_000
        func randomAction() -> CrashModel.Action {
            switch Int.random(in: 0 ..< 10, using: &rng) {
            case 0: nextID += 1; return .insert(nextID)
            case 1: return .remove(Int.random(in: 0 ..< 55, using: &rng))
            case 2, 3, 4: return .toggle(Int.random(in: 0 ..< 55, using: &rng))
            case 5, 6, 7: return .rename(Int.random(in: 0 ..< 55, using: &rng), "t\(Int.random(in: 0 ..< 1000, using: &rng))")
            default: return .note(String(repeating: "n", count: Int.random(in: 0 ..< 30, using: &rng)))
            }
        }

        var moves = 0
        for session in 0 ..< 6 {
            let kind = session == 0 ? 0 : Int.random(in: 0 ..< 5, using: &rng)
            let file = try PersistentState(path: path, initial: CrashModel.initial())
            let where0 = "\(context), session \(session)"
            #expect(PersistentHistoryTests.same(file.state, modelState), "\(where0): the file's state")
            let store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store)
            if kind == 1 {
                // Saving, no history: the saved history is left behind.
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &rng) {
                    let action = randomAction()
                    store.dispatch(action)
                    var state = modelState
                    CrashModel.reduce(&state, action)
                    entries[current - first] = state
                }
                store.waitUntilIdle()
                try file.close()
                (first, current, entries) = (0, 0, [modelState])
                continue
            }
            if kind == 2 { dispatch(randomAction(), to: store) }
            let history = try file.history(of: store, limit: .entries(limit))

            // Per-screen consumers, each connected on its own, and the
            // naive reference.
            var fastLog: [String] = [], naiveLog: [String] = []
            let naive = NaiveConsumer<S>()
            var screens: [StateConsumer<S>] = []
            var nextScreen = 0
            func watch<T: Hashable>(_ name: String, _ select: @escaping (S) -> T) {
                let screen = StateConsumer<S>()
                screen.add(select) { (old: T?, new: T) in fastLog.append("\(name): \(String(describing: old)) -> \(new)") }
                screens.append(screen)
                nextScreen += 1
                naive.add(id: nextScreen, baselineIsNil: false, select: { AnyHashable(select($0)) }) { old, new in
                    let before = old.flatMap { $0.map { $0.base as! T } }
                    naiveLog.append("\(name): \(String(describing: before)) -> \(new!.base as! T)")
                }
            }
            watch("note") { $0.note }
            watch("step") { $0.step }
            watch("count") { $0.rows.count }
            for id in [2, 7, 40] { watch("row \(id)") { $0.rows[id: id]?.title } }
            for id in [3, 11] { watch("done \(id)") { $0.rows[id: id]?.done } }
            var subscriptions = screens.map { $0.connect(to: store) }
            naive.consume(newState: store.state)
            subscriptions.append(store.subscribe { naive.consume(newState: $0) })
            fastLog.removeAll(); naiveLog.removeAll()

            for step in 0 ..< 30 {
                let what: String
                if Int.random(in: 0 ..< 3, using: &rng) == 0 {
                    let action = randomAction()
                    dispatch(action, to: store)
                    what = "\(action)"
                } else {
                    let kept = first ... first + entries.count - 1
                    let target: Int
                    switch Int.random(in: 0 ..< 4, using: &rng) {
                    case 0: target = current - 1
                    case 1: target = current + 1
                    default: target = Int.random(in: kept.lowerBound - 1 ... kept.upperBound + 1, using: &rng)
                    }
                    do {
                        try history.jump(to: target)
                        #expect(kept.contains(target), "\(where0), step \(step): jumped to \(target) outside \(kept)")
                        if target != current { moves += 1 }
                        current = target
                    } catch {
                        #expect(!kept.contains(target), "\(where0), step \(step): jump to \(target) of \(kept) threw \(error)")
                    }
                    what = "jump to \(target) of \(kept)"
                }
                let whereNow = "\(where0), step \(step) (\(what))"
                #expect(PersistentHistoryTests.same(store.state, modelState), "\(whereNow): the states differ")
                #expect(history.indices == first ... first + entries.count - 1 && history.currentIndex == current,
                        "\(whereNow): \(history.indices) at \(history.currentIndex), model \(first)...\(first + entries.count - 1) at \(current)")
                if fastLog.sorted() != naiveLog.sorted() {
                    Issue.record("\(whereNow): the consumers differ from the naive one\nfast  \(fastLog.sorted())\nnaive \(naiveLog.sorted())")
                    return
                }
                fastLog.removeAll(); naiveLog.removeAll()
            }
            for index in history.indices {
                #expect(history[index].map { PersistentHistoryTests.same($0.state, entries[index - first]) } == true,
                        "\(where0): entry \(index)")
            }
            subscriptions.forEach { $0.cancel() }
            try file.close()
        }
        #expect(moves > 20, "\(context): only \(moves) moves")
    }
}

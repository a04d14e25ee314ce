@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// History moves checked against the naive compare-everything consumer on
/// seeded random trees (`FASTSTORE_SEED` reproduces one run, `FASTSTORE_RUNS`
/// sets how many).
@Suite struct StoreHistoryDifferentialTests {
    private struct Mutate: Sendable {
        let body: @Sendable (inout TreeState) -> Void
    }

    @Test func movesDeliverWhatTheNaiveConsumerSees() {
        let seeds: [UInt64] = environmentSeed.map { [$0] }
            ?? (0..<UInt64(environmentRuns(fallback: 6))).map { 0x4157_0000 &+ $0 }
        for seed in seeds {
            if !run(seed: seed) { break }
        }
    }

    /// Returns `false` at the first difference.
    private func run(seed: UInt64) -> Bool {
        var rng = SeededGenerator(seed: seed)
        let store = Store<TreeState, Mutate>(state: TreeGen.state(&rng)) { state, action in action.body(&state) }
        let history = StoreHistory(store, limit: .entries(40))
        let fast = StateConsumer<TreeState>()
        let naive = NaiveConsumer<TreeState>()
        let fastLog = EventLog(), naiveLog = EventLog()
        let counter = SelectorCounter()
        var id = 0
        // Many consumers of random selections (each selector several times,
        // under random callback shapes).
        for _ in 0..<3 {
            for spec in treeSelectors.shuffled(using: &rng) {
                let shape = CallbackShape.allCases.randomElement(using: &rng)!
                _ = spec.register(shape, id, fast, naive, fastLog, naiveLog, counter)
                id += 1
            }
        }
        let subscription = fast.connect(to: store)
        naive.consume(newState: store.state)
        let naiveSubscription = store.subscribe { naive.consume(newState: $0) }
        defer {
            subscription.cancel()
            naiveSubscription.cancel()
        }
        #expect(fastLog.take() == naiveLog.take())
        var past: [TreeState] = []
        var moves = 0
        for step in 0..<240 {
            let what: String
            if step < 60 || Int.random(in: 0..<3, using: &rng) == 0 {
                let mutationSeed = rng.next()
                let kept = past
                store.dispatch(Mutate { state in
                    var local = SeededGenerator(seed: mutationSeed)
                    TreeGen.mutate(&state, history: kept, &local)
                })
                if step % 5 == 0 { past.append(store.state) }
                what = "mutation"
            } else {
                let kept = history.indices
                let target: Int
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: target = history.currentIndex - 1
                case 1: target = history.currentIndex + 1
                default: target = Int.random(in: kept, using: &rng)
                }
                do {
                    try history.jump(to: target)
                    moves += 1
                } catch {
                    #expect(!kept.contains(target), "seed \(seed): \(error)")
                }
                what = "jump to \(target) of \(kept)"
            }
            let fastEvents = fastLog.take(), naiveEvents = naiveLog.take()
            #expect(fastEvents == naiveEvents, "seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step) (\(what))")
            if fastEvents != naiveEvents { return false }
        }
        #expect(moves > 60, "seed \(seed)")
        // The moves took the skipping route (the mutations that replace the
        // root take the comparing one, for moves as for dispatches).
        let statistics = fast._statistics
        #expect(statistics.journaledConsumes > 150, "seed \(seed): \(statistics)")
        return true
    }
}

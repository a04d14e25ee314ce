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

/// The same for rows by id and a dictionary under structural edits
/// (inserts, removals, moves, sorts, replacements) and random moves.
@Suite struct StoreHistoryCollectionDifferentialTests {
    typealias Edits = IdentifiedListDifferentialTests

    struct Board {
        var rows: IdentifiedList<Edits.Row>
        var tags: VersionedDictionary<Int, Int>
        var tag: Int
    }

    enum Step {
        case edit(Edits.Edit)
        case setKey(Int, Int?)
    }

    static func reduce(_ state: inout Versioned<Board>, _ step: Step) {
        switch step {
        case .edit(let edit):
            var inner = Versioned(Edits.Board(rows: state.rows, tag: state.tag))
            Edits.reduce(&inner, edit)
            // NB: assigned back only when changed, so that an untouched
            // list keeps its stamp.
            if inner.rows != state.rows || inner.rows.version != state.rows.version { state.rows = inner.rows }
            if inner.tag != state.tag { state.tag = inner.tag }
        case .setKey(let key, let value): state.tags[key] = value
        }
    }

    @Test func movesOverCollectionsDeliverWhatTheNaiveConsumerSees() {
        var rng = SeededGenerator.fromEnvironment(fallback: 0x4157_1D11)
        for round in 0..<12 {
            let initial = (0..<6).map { Edits.Row(id: $0, title: ["a", "b", "c"][$0 % 3], n: $0 % 4) }
            let store = Store(state: Versioned(Board(rows: IdentifiedList(initial), tags: [0: 0, 1: 1], tag: 0)),
                              reducer: Self.reduce)
            let history = StoreHistory(store, limit: .entries(30))
            let fast = StateConsumer<Versioned<Board>>()
            let naive = NaiveConsumer<Versioned<Board>>()
            var fastLog: [String] = [], naiveLog: [String] = []
            var nextID = 0
            func both<T: Hashable>(_ name: String, _ select: @escaping (Versioned<Board>) -> T) {
                fast.add(select) { (old: T?, new: T) in fastLog.append("\(name): \(String(describing: old)) -> \(new)") }
                nextID += 1
                naive.add(id: nextID, baselineIsNil: false, select: { AnyHashable(select($0)) }) { old, new in
                    let before = old.flatMap { $0.map { $0.base as! T } }
                    naiveLog.append("\(name): \(String(describing: before)) -> \(new!.base as! T)")
                }
            }
            for id in 0..<10 { both("row \(id)") { $0.rows[id: id] } }
            for id in [1, 4] {
                both("has \(id)") { $0.rows.contains(id: id) }
                both("index \(id)") { $0.rows.index(id: id) }
            }
            for key in 0..<4 { both("tag \(key)") { $0.tags[key] } }
            both("count") { $0.rows.count }
            both("ids") { $0.rows.ids }
            both("third") { $0.rows.count > 2 ? $0.rows[2] : nil }
            both("keys") { $0.tags.keys.sorted() }
            both("tag") { $0.tag }
            both("rows version") { $0.rows.version }
            let subscription = fast.connect(to: store)
            let naiveSubscription = store.subscribe { naive.consume(newState: $0) }
            naive.consume(newState: store.state)
            fastLog.removeAll(); naiveLog.removeAll()
            var steps: [String] = []
            for index in 0..<80 {
                if index < 20 || Bool.random(using: &rng) {
                    if Int.random(in: 0..<4, using: &rng) == 0 {
                        let key = Int.random(in: 0..<4, using: &rng)
                        let value = Bool.random(using: &rng) ? nil : Int.random(in: 0..<3, using: &rng)
                        steps.append("tags[\(key)] = \(String(describing: value))")
                        store.dispatch(.setKey(key, value))
                    } else {
                        let edit = Edits.randomEdit(&rng, ids: 10)
                        steps.append(edit.description)
                        store.dispatch(.edit(edit))
                    }
                } else {
                    let target = Int.random(in: history.indices, using: &rng)
                    steps.append("jump to \(target)")
                    try! history.jump(to: target)
                }
                if fastLog.sorted() != naiveLog.sorted() {
                    Issue.record("seed \(rng.seed), round \(round), after \(steps):\nfast  \(fastLog)\nnaive \(naiveLog)")
                    return
                }
                fastLog.removeAll(); naiveLog.removeAll()
            }
            #expect(fast._statistics.fullConsumes <= 2, "moves took the skipping route: \(fast._statistics)")
            withExtendedLifetime((subscription, naiveSubscription, history)) {}
        }
    }
}

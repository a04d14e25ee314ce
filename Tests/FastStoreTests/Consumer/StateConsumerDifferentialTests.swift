@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// The fast consumer against the naive reference on random trees, random
/// mutation sequences (journaled as a store drain journals them, and not)
/// and random selectors: both must deliver exactly the same callbacks, in
/// the same order, with the same old and new selections.
@Suite struct StateConsumerDifferentialTests {
    /// One randomized run; returns a description of the first divergence.
    ///
    /// With `churn`, it starts with more consumers and half of its steps add
    /// or remove one (removals twice as likely), so that the registry
    /// compacts and renumbers its consumers (past 16 removed, and more than
    /// half) between and during consumes.
    static func run(seed: UInt64, steps: Int, churn: Bool = false, statistics: inout _ConsumeStatistics) -> String? {
        var rng = SeededGenerator(seed: seed)
        var state = TreeGen.state(&rng)
        var history: [TreeState] = [state]
        let fast = StateConsumer<TreeState>()
        let naive = NaiveConsumer<TreeState>()
        let fastLog = EventLog(), naiveLog = EventLog()
        let counter = SelectorCounter()
        var handles: [Int: ConsumerHandle<TreeState>] = [:]
        var nextID = 0
        var trace: [String] = []

        func addRandomConsumer() {
            let spec = treeSelectors.randomElement(using: &rng)!
            let shape = CallbackShape.allCases.randomElement(using: &rng)!
            let id = nextID
            nextID += 1
            handles[id] = spec.register(shape, id, fast, naive, fastLog, naiveLog, counter)
            trace.append("add #\(id) \(spec.name) \(shape)")
            if Int.random(in: 0..<4, using: &rng) == 0, let remover = handles.keys.sorted().randomElement(using: &rng) {
                // An earlier consumer's callback (or this one's) removes this
                // consumer during a consume, on each side: it must not be
                // called afterwards in that consume.
                fastLog.afterDelivery[remover] = { if let handle = handles.removeValue(forKey: id) { fast.remove(handle) } }
                naiveLog.afterDelivery[remover] = { naive.remove(id: id) }
                trace.append("  #\(remover)'s callback removes #\(id)")
            } else if Int.random(in: 0..<6, using: &rng) == 0 {
                // This consumer's callback adds one during a consume, on each
                // side (first evaluated by the next consume).
                let added = nextID
                nextID += 1
                let addedSpec = treeSelectors.randomElement(using: &rng)!
                let addedShape = CallbackShape.allCases.randomElement(using: &rng)!
                var done = (fast: false, naive: false)
                fastLog.afterDelivery[id] = {
                    guard !done.fast else { return }
                    done.fast = true
                    handles[added] = addedSpec.register(addedShape, added, fast, NaiveConsumer(), fastLog, EventLog(), counter)
                }
                naiveLog.afterDelivery[id] = {
                    guard !done.naive else { return }
                    done.naive = true
                    _ = addedSpec.register(addedShape, added, StateConsumer(), naive, EventLog(), naiveLog, counter)
                }
                trace.append("  #\(id)'s callback adds #\(added) \(addedSpec.name) \(addedShape)")
            }
        }
        func deliverBoth(_ notify: (TreeState) -> Void) {
            notify(state)
        }

        for _ in 0..<Int.random(in: churn ? 20...40 : 1...10, using: &rng) { addRandomConsumer() }

        for step in 0..<steps {
            let roll = churn && Bool.random(using: &rng)
                ? Int.random(in: 86..<97, using: &rng)
                : Int.random(in: 0..<100, using: &rng)
            switch roll {
            case 0..<55:
                // A store drain: journaled mutations, then both consumers
                // notified with the drain's changes installed.
                var described: [String] = []
                _DrainSimulator.drain(&state, { state in
                    for _ in 0..<Int.random(in: 1...3, using: &rng) {
                        described.append(TreeGen.mutate(&state, history: history, &rng))
                    }
                }, notify: { newState in
                    fast.consume(newState: newState)
                    naive.consume(newState: newState)
                })
                trace.append("drain: " + described.joined(separator: "; "))
            case 55..<62:
                // A drain nobody consumed: the consumers skip a version.
                var described: [String] = []
                _DrainSimulator.drain(&state, { state in
                    described.append(TreeGen.mutate(&state, history: history, &rng))
                }, notify: { _ in })
                trace.append("unconsumed drain: " + described.joined(separator: "; "))
            case 62..<68:
                // Unjournaled mutation, consumed without drain changes.
                let described = TreeGen.mutate(&state, history: history, &rng)
                fast.consume(newState: state)
                naive.consume(newState: state)
                trace.append("unjournaled: \(described)")
            case 68..<72:
                // A drain whose reducer assigns a kept state wholesale
                // (undo): the root's chain is broken.
                var described: [String] = []
                let past = history.randomElement(using: &rng)!
                _DrainSimulator.drain(&state, { state in
                    described.append(TreeGen.mutate(&state, history: history, &rng))
                    state = past
                    described.append("state = past")
                }, notify: { newState in
                    fast.consume(newState: newState)
                    naive.consume(newState: newState)
                })
                trace.append("drain: " + described.joined(separator: "; "))
            case 72..<76:
                // A state from elsewhere.
                state = Bool.random(using: &rng) ? TreeGen.state(&rng) : history.randomElement(using: &rng)!
                fast.consume(newState: state)
                naive.consume(newState: state)
                trace.append("state from elsewhere")
            case 76..<80:
                fast.consume(newState: state)
                naive.consume(newState: state)
                trace.append("same state again")
            case 80..<90:
                addRandomConsumer()
            case 90..<97:
                if let id = handles.keys.sorted().randomElement(using: &rng) {
                    fast.remove(handles.removeValue(forKey: id)!)
                    naive.remove(id: id)
                    trace.append("remove #\(id)")
                }
            default:
                fast.removeAll()
                naive.removeAll()
                handles.removeAll()
                trace.append("removeAll")
                addRandomConsumer()
            }
            if Int.random(in: 0..<4, using: &rng) == 0 { history.append(state) }
            let fastEvents = fastLog.take()
            let naiveEvents = naiveLog.take()
            if fastEvents != naiveEvents {
                return """
                seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step): callbacks differ
                  fast:  \(fastEvents)
                  naive: \(naiveEvents)
                trace:
                  \(trace.suffix(30).joined(separator: "\n  "))
                """
            }
        }
        let stats = fast._statistics
        statistics.fullConsumes += stats.fullConsumes
        statistics.journaledConsumes += stats.journaledConsumes
        statistics.unchangedConsumes += stats.unchangedConsumes
        statistics.evaluations += stats.evaluations
        return nil
    }

    @Test func fastConsumerDeliversExactlyWhatTheNaiveOneDelivers() {
        var seeds = SeededGenerator.fromEnvironment(fallback: 0xC0_25_0E_12)
        let runs = environmentSeed == nil ? environmentRuns(fallback: 400) : 1
        var statistics = _ConsumeStatistics()
        for _ in 0..<runs {
            let seed = runs == 1 ? seeds.seed : seeds.next()
            if let failure = Self.run(seed: seed, steps: 60, statistics: &statistics) {
                Issue.record(Comment(rawValue: failure))
                return
            }
        }
        // The runs must have exercised the journaled path, not only the
        // evaluate-everything one.
        #expect(statistics.journaledConsumes > runs * 10)
        #expect(statistics.fullConsumes > runs)
    }

    /// The same with consumers added and removed at half the steps: the
    /// registry compacts and renumbers them (ids are positions) while
    /// drains go on, some of it from callbacks during a consume.
    @Test func fastConsumerDeliversExactlyWhatTheNaiveOneDeliversUnderChurn() {
        var seeds = SeededGenerator.fromEnvironment(fallback: 0xC4_0E_2E_16)
        let runs = environmentSeed == nil ? environmentRuns(fallback: 150) : 1
        var statistics = _ConsumeStatistics()
        for _ in 0..<runs {
            let seed = runs == 1 ? seeds.seed : seeds.next()
            if let failure = Self.run(seed: seed, steps: 160, churn: true, statistics: &statistics) {
                Issue.record(Comment(rawValue: failure))
                return
            }
        }
        #expect(statistics.journaledConsumes > runs * 10)
    }
}

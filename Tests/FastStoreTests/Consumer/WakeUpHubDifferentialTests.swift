import Atomics
@_spi(Testing) import FastStore
import FastStoreTestSupport
import Testing

/// Consumers connected to a store one per screen, as the seed's view
/// controllers do, against a naive reference per screen fed every state the
/// store publishes (compare everything): on random trees and mutations,
/// restores of any earlier state, wholesale replacements, history moves,
/// states consumed from elsewhere, selectors added and removed (also from
/// callbacks), screens disconnected and reconnected. The store's wake-up
/// hub calls only the screens whose reads a drain wrote; each screen must
/// still deliver exactly the reference's callbacks. The runs alternate
/// between a `Store` and a `MainStore` (written in place; no history: its
/// moves are dispatched as restores of earlier states there).
@Suite(.serialized) struct WakeUpHubDifferentialTests {
    /// A store action: one step of the run's reducer.
    struct Step {
        let apply: (inout TreeState) -> Void
    }

    final class Screen {
        let number: Int
        let consumer = StateConsumer<TreeState>()
        let naive = NaiveConsumer<TreeState>()
        let fastLog = EventLog()
        let naiveLog = EventLog()
        var handles: [Int: ConsumerHandle<TreeState>] = [:]
        var subscription: StoreSubscription?
        init(number: Int) { self.number = number }
    }

    /// The store a run drives: a `Store` with its history, or a `MainStore`.
    @MainActor
    struct RunStore {
        let store: Store<TreeState, Step>?
        let main: MainStore<TreeState, Step>?
        let history: StoreHistory<TreeState, Step>?

        init(_ state: TreeState, onMainStore: Bool) {
            let reducer: Reducer<TreeState, Step> = { state, step in step.apply(&state) }
            if onMainStore {
                store = nil
                main = MainStore(state: state, reducer: reducer)
                history = nil
            } else {
                let store = Store(state: state, reducer: reducer)
                self.store = store
                main = nil
                history = StoreHistory(store)
            }
        }
        var state: TreeState { store?.state ?? main!.state }
        func dispatch(_ step: sending Step) { if let store { store.dispatch(step) } else { main!.dispatch(step) } }
        func dispatch(contentsOf steps: sending [Step]) {
            if let store { store.dispatch(contentsOf: steps) } else { main!.dispatch(contentsOf: steps) }
        }
        func subscribe(_ body: @escaping (TreeState) -> Void) -> StoreSubscription {
            store?.subscribe(body) ?? main!.subscribe(body)
        }
        func connect(_ consumer: StateConsumer<TreeState>) -> StoreSubscription {
            if let store { return consumer.connect(to: store) }
            return consumer.connect(to: main!)
        }
    }

    /// One randomized run; returns a description of the first divergence.
    @MainActor
    static func run(seed: UInt64, steps: Int, statistics: inout _ConsumeStatistics, onMainStore: Bool = false) -> String? {
        var rng = SeededGenerator(seed: seed)
        var published: [TreeState] = []
        let store = RunStore(TreeGen.state(&rng), onMainStore: onMainStore)
        let history = store.history
        published.append(store.state)
        let counter = SelectorCounter()
        var screens: [Screen] = []
        var nextID = 0
        var trace: [String] = []

        // The reference: every connected screen's naive consumer is fed
        // every published state.
        let reference = store.subscribe { state in
            for screen in screens where screen.subscription != nil { screen.naive.consume(newState: state) }
        }

        func addSelector(to screen: Screen) {
            let spec = treeSelectors.randomElement(using: &rng)!
            let shape = CallbackShape.allCases.randomElement(using: &rng)!
            let id = nextID
            nextID += 1
            screen.handles[id] = spec.register(
                shape, id, screen.consumer, screen.naive, screen.fastLog, screen.naiveLog, counter)
            trace.append("screen \(screen.number): add #\(id) \(spec.name) \(shape)")
            if Int.random(in: 0..<6, using: &rng) == 0, let remover = screen.handles.keys.sorted().randomElement(using: &rng) {
                // A callback removes this selector during a consume.
                screen.fastLog.afterDelivery[remover] = {
                    if let handle = screen.handles.removeValue(forKey: id) { screen.consumer.remove(handle) }
                }
                screen.naiveLog.afterDelivery[remover] = { screen.naive.remove(id: id) }
                trace.append("  #\(remover)'s callback removes #\(id)")
            } else if Int.random(in: 0..<8, using: &rng) == 0 {
                // This selector's callback adds one during a consume.
                let added = nextID
                nextID += 1
                let addedSpec = treeSelectors.randomElement(using: &rng)!
                let addedShape = CallbackShape.allCases.randomElement(using: &rng)!
                var done = (fast: false, naive: false)
                screen.fastLog.afterDelivery[id] = {
                    guard !done.fast else { return }
                    done.fast = true
                    screen.handles[added] = addedSpec.register(
                        addedShape, added, screen.consumer, NaiveConsumer(), screen.fastLog, EventLog(), counter)
                }
                screen.naiveLog.afterDelivery[id] = {
                    guard !done.naive else { return }
                    done.naive = true
                    _ = addedSpec.register(addedShape, added, StateConsumer(), screen.naive, EventLog(), screen.naiveLog, counter)
                }
                trace.append("  #\(id)'s callback adds #\(added) \(addedSpec.name) \(addedShape)")
            }
        }
        func connect(_ screen: Screen) {
            screen.subscription = store.connect(screen.consumer)
            screen.naive.consume(newState: store.state)
            trace.append("screen \(screen.number): connect")
        }
        func newScreen() {
            let screen = Screen(number: screens.count)
            screens.append(screen)
            for _ in 0..<Int.random(in: 1...3, using: &rng) { addSelector(to: screen) }
            connect(screen)
        }
        func mutations() -> Step {
            var described: [String] = []
            var local = SeededGenerator(seed: UInt64.random(in: 0...UInt64.max, using: &rng))
            let count = Int.random(in: 1...3, using: &rng)
            let past = published
            let step = Step { state in
                for _ in 0..<count { described.append(TreeGen.mutate(&state, history: past, &local)) }
            }
            trace.append("dispatch (\(count) mutations)")
            return step
        }

        for _ in 0..<Int.random(in: 3...12, using: &rng) { newScreen() }

        for step in 0..<steps {
            let connected = screens.filter { $0.subscription != nil }
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<44:
                store.dispatch(mutations())
            case 44..<48:
                // Two actions in one batch: one publish.
                store.dispatch(contentsOf: [mutations(), mutations()])
            case 48..<53:
                let past = published.randomElement(using: &rng)!
                store.dispatch(Step { $0 = past })
                trace.append("dispatch state = an earlier published state")
            case 53..<55:
                let fresh = TreeGen.state(&rng)
                store.dispatch(Step { $0 = fresh })
                trace.append("dispatch state = a new state")
            case 55..<58:
                store.dispatch(Step { _ in })
                trace.append("dispatch a no-op")
            case 58..<62:
                let move = Int.random(in: 0..<3, using: &rng)
                if let history {
                    switch move {
                    case 0: try? history.undo()
                    case 1: try? history.redo()
                    default: try? history.jump(to: Int.random(in: history.indices, using: &rng))
                    }
                    trace.append("history move \(move)")
                } else {
                    let past = published.randomElement(using: &rng)!
                    store.dispatch(Step { $0 = past })
                    trace.append("dispatch state = an earlier published state (for history move \(move))")
                }
            case 62..<65:
                // A state consumed from elsewhere by one screen.
                if let screen = connected.randomElement(using: &rng) {
                    let other = Bool.random(using: &rng) ? published.randomElement(using: &rng)! : TreeGen.state(&rng)
                    screen.consumer.consume(newState: other)
                    screen.naive.consume(newState: other)
                    trace.append("screen \(screen.number): consume a state from elsewhere")
                }
            case 65..<75:
                if let screen = screens.randomElement(using: &rng) { addSelector(to: screen) }
            case 75..<82:
                if let screen = screens.randomElement(using: &rng),
                   let id = screen.handles.keys.sorted().randomElement(using: &rng) {
                    screen.consumer.remove(screen.handles.removeValue(forKey: id)!)
                    screen.naive.remove(id: id)
                    trace.append("screen \(screen.number): remove #\(id)")
                }
            case 82..<84:
                if let screen = screens.randomElement(using: &rng) {
                    screen.consumer.removeAll()
                    screen.naive.removeAll()
                    screen.handles.removeAll()
                    trace.append("screen \(screen.number): removeAll")
                    addSelector(to: screen)
                }
            case 84..<89:
                if let screen = connected.randomElement(using: &rng) {
                    screen.subscription!.cancel()
                    screen.subscription = nil
                    trace.append("screen \(screen.number): disconnect")
                }
            case 89..<94:
                if let screen = screens.filter({ $0.subscription == nil }).randomElement(using: &rng) {
                    connect(screen)
                } else {
                    newScreen()
                }
            default:
                newScreen()
            }
            published.append(store.state)
            for screen in screens {
                let fastEvents = screen.fastLog.take()
                let naiveEvents = screen.naiveLog.take()
                if fastEvents != naiveEvents {
                    return """
                    seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step), screen \(screen.number): callbacks differ
                      fast:  \(fastEvents)
                      naive: \(naiveEvents)
                    trace:
                      \(trace.suffix(30).joined(separator: "\n  "))
                    """
                }
            }
        }
        for screen in screens {
            let stats = screen.consumer._statistics
            statistics.fullConsumes += stats.fullConsumes
            statistics.journaledConsumes += stats.journaledConsumes
            statistics.unchangedConsumes += stats.unchangedConsumes
            statistics.evaluations += stats.evaluations
        }
        withExtendedLifetime((reference, history)) {}
        return nil
    }

    @Test @MainActor func connectedScreensDeliverExactlyWhatTheReferenceDelivers() {
        var seeds = SeededGenerator.fromEnvironment(fallback: 0x3A_4E_B0_B5)
        let runs = environmentSeed == nil ? environmentRuns(fallback: 150) : 1
        var statistics = _ConsumeStatistics()
        for _ in 0..<runs {
            let seed = runs == 1 ? seeds.seed : seeds.next()
            // NB: the seeds are split between the two stores.
            if let failure = Self.run(seed: seed, steps: 80, statistics: &statistics, onMainStore: seed % 2 == 1) {
                Issue.record(Comment(rawValue: failure))
                return
            }
        }
        #expect(statistics.journaledConsumes > runs * 5)
        #expect(statistics.fullConsumes > runs)
    }

    /// The suite catches a dropped wake-up: with the hub told to skip every
    /// seventh consumer it would call, runs diverge from the reference.
    /// (The fault is compiled into builds with the internal checks only.)
    @Test(.enabled(if: _internalChecksCompiled)) @MainActor
    func aDroppedWakeUpIsCaught() {
        var seeds = SeededGenerator(seed: 0xD20B)
        var statistics = _ConsumeStatistics()
        var caught = 0
        _WakeUpHubFaults.$dropEvery.withValue(7) {
            for _ in 0..<20 where Self.run(seed: seeds.next(), steps: 80, statistics: &statistics) != nil {
                caught += 1
            }
        }
        #expect(caught > 10)
    }

    /// Screens stay right when four threads dispatch: once the store is
    /// idle, each selector's last delivered selection is its selection of
    /// the final state.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func fourDispatchingThreads(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let store = Store<TreeState, Step>(state: TreeGen.state(&rng)) { state, step in step.apply(&state) }
        let lastSeen = Shared<[Int: AnyHashable?]>([:])
        // Each selector is registered on a screen's consumer and on a naive
        // consumer of its own, which tells its selection of the final state.
        var references: [Int: (naive: NaiveConsumer<TreeState>, log: EventLog)] = [:]
        var consumers: [StateConsumer<TreeState>] = []
        var subscriptions: [StoreSubscription] = []
        var id = 0
        for _ in 0..<40 {
            let consumer = StateConsumer<TreeState>()
            let log = EventLog()
            for _ in 0..<Int.random(in: 1...2, using: &rng) {
                let spec = treeSelectors.randomElement(using: &rng)!
                let mine = id
                id += 1
                log.afterDelivery[mine] = { [unowned log] in
                    let new = log.events.removeLast().new
                    lastSeen.mutate { $0[mine] = new }
                }
                _ = spec.register(.optionalOldNew, mine, consumer, NaiveConsumer(), log, EventLog(), SelectorCounter())
                let naive = NaiveConsumer<TreeState>()
                let naiveLog = EventLog()
                _ = spec.register(.optionalOldNew, mine, StateConsumer(), naive, EventLog(), naiveLog, SelectorCounter())
                references[mine] = (naive, naiveLog)
            }
            consumers.append(consumer)
            subscriptions.append(consumer.connect(to: store))
        }
        let seeds = (0..<4).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
        let sendableStore = Shared(store)
        onThreads(4) { t in
            let store = sendableStore.value
            var local = SeededGenerator(seed: seeds[t])
            for _ in 0..<300 {
                let s = UInt64.random(in: 0...UInt64.max, using: &local)
                store.dispatch(Step { state in
                    var g = SeededGenerator(seed: s)
                    TreeGen.mutate(&state, history: [], &g)
                })
            }
        }
        store.waitUntilIdle()
        let final = store.state
        let seen = lastSeen.value
        for (mine, reference) in references.sorted(by: { $0.key < $1.key }) {
            reference.naive.consume(newState: final)
            let expected: AnyHashable? = reference.log.events.last?.new ?? nil
            let delivered: AnyHashable? = seen[mine] ?? nil
            #expect(delivered == expected, "selector #\(mine), seed \(seed)")
        }
        withExtendedLifetime((consumers, subscriptions)) {}
    }
}

/// Whether this test build has the internal checks (and the fault
/// injection) compiled in: debug builds.
#if FASTSTORE_INTERNAL_CHECKS
let _internalChecksCompiled = true
#else
let _internalChecksCompiled = false
#endif

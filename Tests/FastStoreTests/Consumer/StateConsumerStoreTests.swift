@_spi(Testing) import FastStore
import FastStoreTestSupport
import Observation
import Testing

/// A mutation of the test tree, as an action.
private struct Mutate: Sendable {
    let body: @Sendable (inout TreeState) -> Void
}

private struct Todo: Equatable, Sendable {
    var title: String
    var done = false
}

private struct TodoState: Equatable, Sendable {
    var items: VersionedList<Todo>
    var filter = "all"
    var settings = Versioned(Settings())
}

private struct Settings: Equatable, Sendable {
    var theme = "light"
}

private enum TodoAction: Sendable {
    case toggle(Int)
    case setFilter(String)
    case setTheme(String)
    case replace(Versioned<TodoState>)
}

private func todoReducer(_ state: inout Versioned<TodoState>, _ action: TodoAction) {
    switch action {
    case .toggle(let i): state.items[i].done.toggle()
    case .setFilter(let filter): state.filter = filter
    case .setTheme(let theme): state.settings.theme = theme
    case .replace(let other): state = other
    }
}

/// The consumer fed by a real ``Store``.
@Suite struct StateConsumerStoreTests {
    /// A consumer is no Observation tracking: connecting one (here inside
    /// a tracking, as a view's body might) registers no access, so the
    /// tracking is not invalidated by the store's next publish.
    @Test(arguments: [false, true])
    func connectingAConsumerRegistersNoObservationAccess(versioned: Bool) {
        let fired = Locked(false)
        if versioned {
            let store = Store<Versioned<TreeLeaf>, Int>(state: Versioned(TreeLeaf(a: 0, b: 0))) { $0.a += $1 }
            let consumer = StateConsumer<Versioned<TreeLeaf>>()
            consumer.add({ $0.b }) { (_: Int) in }
            var subscription: StoreSubscription?
            withObservationTracking { subscription = consumer.connect(to: store) } onChange: { fired.withValue { $0 = true } }
            store.dispatch(1)
            withExtendedLifetime(subscription) {}
        } else {
            let store = Store<Int, Int>(state: 0) { $0 += $1 }
            let consumer = StateConsumer<Int>()
            consumer.add({ $0 }) { (_: Int) in }
            var subscription: StoreSubscription?
            withObservationTracking { subscription = consumer.connect(to: store) } onChange: { fired.withValue { $0 = true } }
            store.dispatch(1)
            withExtendedLifetime(subscription) {}
        }
        #expect(!fired.withValue { $0 })
    }

    @Test func aConnectedConsumerRunsOnlyAffectedSelectors() {
        let initial = Versioned(TodoState(items: VersionedList((0..<1000).map { Todo(title: "\($0)") })))
        let store = Store(state: initial, reducer: todoReducer)
        let consumer = StateConsumer<Versioned<TodoState>>()
        let counter = SelectorCounter()
        var log: [String] = []
        for i in 0..<100 {
            consumer.add({ counter.count(i); return $0.items[i * 10].done }) { (old: Bool?, new: Bool) in
                log.append("item \(i * 10) \(old.map { "\($0)" } ?? "nil")->\(new)")
            }
        }
        consumer.add({ counter.count(1000); return $0.filter }) { (new: String) in log.append("filter \(new)") }
        consumer.add({ counter.count(1001); return $0.settings }) { (new: Versioned<Settings>) in
            log.append("settings \(new.theme)")
        }
        let subscription = consumer.connect(to: store)
        // The current state is consumed at once: every consumer runs.
        #expect(log.count == 102)
        #expect(counter.total == 102)
        log.removeAll()

        store.dispatch(.toggle(20))
        #expect(log == ["item 20 false->true"])
        #expect(counter.total == 103)  // one selector ran
        store.dispatch(.toggle(21))   // nobody reads item 21
        #expect(log == ["item 20 false->true"])
        #expect(counter.total == 103)
        store.dispatch(.setFilter("done"))
        #expect(log.last == "filter done")
        #expect(counter.total == 104)
        store.dispatch(.setTheme("dark"))
        #expect(log.last == "settings dark")
        #expect(counter.total == 105)
        // The store's wake-up hub calls the consumer for the first publish
        // after it connected (it is not anchored yet), then only for
        // publishes that wrote something it read: not for item 21.
        #expect(consumer._statistics.journaledConsumes == 3)

        // A reducer that assigns a whole (kept) state: the chain is broken,
        // every selector runs and the callbacks are right.
        store.dispatch(.replace(initial))
        #expect(log.suffix(3) == ["item 20 true->false", "filter all", "settings light"])
        #expect(counter.total == 105 + 102)
        #expect(consumer._statistics.fullConsumes == 2)

        subscription.cancel()
        store.dispatch(.toggle(30))
        #expect(counter.total == 105 + 102)
    }

    @Test func aConnectedConsumerMatchesTheNaiveOneThroughTheStore() {
        let seed = environmentSeed ?? 0x5702E
        var rng = SeededGenerator(seed: seed)
        let store = Store<TreeState, Mutate>(state: TreeGen.state(&rng)) { state, action in action.body(&state) }
        let fast = StateConsumer<TreeState>()
        let naive = NaiveConsumer<TreeState>()
        let fastLog = EventLog(), naiveLog = EventLog()
        let counter = SelectorCounter()
        for (id, spec) in treeSelectors.enumerated() {
            let shape = CallbackShape.allCases[id % CallbackShape.allCases.count]
            _ = spec.register(shape, id, fast, naive, fastLog, naiveLog, counter)
        }
        let subscription = fast.connect(to: store)
        naive.consume(newState: store.state)
        let naiveSubscription = store.subscribe { naive.consume(newState: $0) }
        #expect(fastLog.take() == naiveLog.take())
        var history: [TreeState] = []
        for step in 0..<300 {
            let mutationSeed = rng.next()
            let past = history
            store.dispatch(Mutate { state in
                var local = SeededGenerator(seed: mutationSeed)
                TreeGen.mutate(&state, history: past, &local)
            })
            let fastEvents = fastLog.take(), naiveEvents = naiveLog.take()
            #expect(fastEvents == naiveEvents, "seed \(seed) (FASTSTORE_SEED=\(seed)), step \(step)")
            if fastEvents != naiveEvents { break }
            if step % 7 == 0 { history.append(store.state) }
        }
        #expect(fast._statistics.journaledConsumes > 150)
        subscription.cancel()
        naiveSubscription.cancel()
    }
}

/// The consumer fed on the main queue: the store coalesces drains and hands
/// over their merged changes, which keep the journaled path.
@Suite struct StateConsumerMainQueueTests {
    @MainActor
    @Test func aConsumerConnectedOnMainSeesTheFinalStateThroughMergedChanges() async throws {
        let initial = Versioned(TodoState(items: VersionedList((0..<100).map { Todo(title: "\($0)") })))
        let store = Store(state: initial, reducer: todoReducer)
        let consumer = StateConsumer<Versioned<TodoState>>()
        let seen = MainLog()
        consumer.add({ $0.items[7].done }) { (new: Bool) in seen.values.append(new) }
        consumer.add({ $0.filter }) { (new: String) in seen.filters.append(new) }
        let subscription = consumer.connect(to: store, on: .main)
        #expect(seen.values == [false] && seen.filters == ["all"])
        await Task.detached {
            for _ in 0..<101 { store.dispatch(.toggle(7)) }
            store.dispatch(.setFilter("done"))
        }.value
        for _ in 0..<400 where seen.filters.last != "done" {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(seen.filters == ["all", "done"])
        #expect(seen.values.last == true, "101 toggles end on true")
        // Coalesced or not, the merged changes chain from the last consumed
        // state, so every consume after the first takes the journaled path.
        // The store's change log holds its last 128 drains, more than the
        // 102 made here, however late the main queue delivers.
        let statistics = consumer._statistics
        #expect(statistics.fullConsumes == 1 && statistics.unlinkedConsumes == 0, "\(statistics)")
        // NB: `>= 1`: how many consumes the main queue's delivery made of
        // the 102 publishes (coalesced, or not) is up to its timing.
        #expect(statistics.journaledConsumes >= 1, "\(statistics)")
        subscription.cancel()
    }
}

@MainActor
private final class MainLog {
    var values: [Bool] = []
    var filters: [String] = []
}

@Suite struct StateConsumerInstantStoreTests {
    @Test func consumeInstantlyEvaluatesANewConsumerAgainstTheLastConsumedState() {
        let store = Store(state: Versioned(TodoState(items: VersionedList([Todo(title: "a")]))), reducer: todoReducer)
        let consumer = StateConsumer<Versioned<TodoState>>()
        consumer.consumeInstantly = true
        let subscription = consumer.connect(to: store)
        store.dispatch(.setFilter("done"))
        var log: [String] = []
        consumer.add({ $0.filter }) { (old: String?, new: String) in log.append("\(old ?? "nil")->\(new)") }
        #expect(log == ["nil->done"])
        #expect(consumer._instantStateIsKept, "the last consumed state is the source of instant calls")
        store.dispatch(.setFilter("all"))
        #expect(log == ["nil->done", "done->all"])
        subscription.cancel()
    }
}

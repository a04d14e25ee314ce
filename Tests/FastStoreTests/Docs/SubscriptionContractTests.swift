import FastStore
import Testing

/// The table "Subscriptions side by side" (docs/watchers.md and the DocC
/// article "Watching a store from many screens"), row by row: which
/// subscriptions get the current value at once, and which are told of a
/// batch that changed nothing.
@Suite struct SubscriptionContractTests {
    @Test func storeSubscribeGetsNoCurrentValueAndIsToldOfEveryBatch() {
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        var told: [Int] = []
        let subscription = store.subscribe { told.append($0) }
        #expect(told == [], "no current value on subscribing")
        store.dispatch(1)
        store.dispatch(0)                                  // changes nothing
        #expect(told == [1, 1], "a batch that changed nothing is told too")
        subscription.cancel()
    }

    @Test func aScopesSubscribeGetsNoCurrentValueAndIsToldOnlyOfChanges() {
        let store = makeScopeApp(rows: 10)
        let settings = store.scope(state: \.settings, action: ScopeAppAction.settings)
        var themes: [String] = []
        let subscription = settings.subscribe { themes.append($0.theme) }
        #expect(themes == [], "no current value on subscribing")
        store.dispatch(.increment)
        settings.dispatch(.setTheme("dark"))
        #expect(themes == ["dark"], "only the batches that changed the scope")
        subscription.cancel()
    }

    @Test func aConnectedConsumerGetsTheCurrentValueThenOnlyChanges() {
        let store = Store<Versioned<Pair>, Int>(state: Versioned(Pair())) { state, action in
            if action > 0 { state.a += action } else { state.b += 1 }
        }
        let consumer = StateConsumer<Versioned<Pair>>()
        var told: [Int] = []
        consumer.add({ $0.a }) { (new: Int) in told.append(new) }
        let subscription = consumer.connect(to: store)
        #expect(told == [0], "the current value on connecting")
        store.dispatch(-1)                                 // writes b only
        store.dispatch(2)
        #expect(told == [0, 2])
        subscription.cancel()
    }

    @Test func sequencesStartWithTheCurrentValue() async {
        let store = Store<Int, Int>(state: 5) { $0 += $1 }
        var states = store.states.makeAsyncIterator()
        #expect(await states.next() == 5)
        var values = store.values({ $0 * 10 }).makeAsyncIterator()
        #expect(await values.next() == 50)
        store.dispatch(1)
        #expect(await states.next() == 6)
        #expect(await values.next() == 60)
    }

    @Test func aStoreProtocolSubscribesOnTheDrainingThreadByDefault() {
        func watch(_ store: some StoreProtocol<Int, Int>, into told: Shared<[Int]>) -> StoreSubscription {
            store.subscribe { value in told.mutate { $0.append(value) } }
        }
        let store = Store<Int, Int>(state: 0) { $0 += $1 }
        let told = Shared<[Int]>([])
        let subscription = watch(store, into: told)
        store.dispatch(3)
        #expect(told.value == [3])
        subscription.cancel()
    }
}

private struct Pair { var a = 0; var b = 0 }

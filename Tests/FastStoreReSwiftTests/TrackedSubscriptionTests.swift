@_spi(Testing) import FastStore
@_spi(Testing) import FastStoreReSwift
import Testing

// The facade's tracked subscriptions (`select` + `Equatable`
// `skipRepeats()`, run by the store's consumer) where they could part from
// ReSwift: a subscriber gone, a transform returning another stage, an
// unsubscribe from the first `newState`, and the cost of subscribing.

private struct Counter: Equatable {
    var count = 0
    var rows: VersionedList<Int> = VersionedList([0, 0, 0])
}

private struct Bump: FastStoreReSwift.Action {}

private func counterReducer<S>(_ action: FastStoreReSwift.Action, _ state: S?, make: () -> S, bump: (inout S) -> Void) -> S {
    var state = state ?? make()
    if action is Bump { bump(&state) }
    return state
}

private func plainStore() -> FastStoreReSwift.Store<Counter> {
    FastStoreReSwift.Store<Counter>(reducer: { counterReducer($0, $1, make: { Counter() }, bump: { $0.count += 1 }) }, state: nil)
}

private func versionedStore() -> FastStoreReSwift.Store<Versioned<Counter>> {
    FastStoreReSwift.Store<Versioned<Counter>>(
        reducer: { counterReducer($0, $1, make: { Versioned(Counter()) }, bump: { $0.count += 1 }) }, state: nil)
}

private final class Screen: FastStoreReSwift.StoreSubscriber {
    var values: [Int] = []
    var onNewState: ((Int) -> Void)?
    func newState(state: Int) {
        values.append(state)
        onNewState?(state)
    }
}

/// Counts selector runs from outside the subscriber.
private final class Calls: @unchecked Sendable {
    var count = 0
}

@Suite struct TrackedSubscriptionTests {
    /// ReSwift looks at the subscriber before running the chain: a selector
    /// capturing its subscriber `unowned` never runs once it is gone.
    @Test func aGoneSubscribersSelectorDoesNotRun() {
        func check<S>(_ store: FastStoreReSwift.Store<S>, _ read: @escaping (S) -> Int) {
            let calls = Calls()
            do {
                let screen = Screen()
                store.subscribe(screen) { [unowned screen] in
                    $0.select { state in calls.count += 1; _ = screen.values; return read(state) }
                }
                store.dispatch(Bump())
                #expect(screen.values == [0, 1])
            }
            let before = calls.count
            store.dispatch(Bump())
            store.dispatch(Bump())
            #expect(calls.count == before, "the selector of a deallocated subscriber ran")
            #expect(store._subscriptionCount == 0)
        }
        check(plainStore()) { $0.count }
        check(versionedStore()) { $0.count }
    }

    /// A transform that returns a stage before its `skipRepeats()` is fed
    /// from that stage, as in ReSwift: untracked, told of every dispatch.
    @Test func aTransformReturningAnEarlierStageIsFedFromIt() {
        let store = FastStoreReSwift.Store<Versioned<Counter>>(
            reducer: { counterReducer($0, $1, make: { Versioned(Counter()) }, bump: { $0.count += 1 }) },
            state: nil, automaticallySkipsRepeats: false)
        let screen = Screen()
        store.subscribe(screen) { subscription -> Subscription<Int> in
            let selected = subscription.select(\.count)
            _ = selected.skipRepeats()
            return selected
        }
        store.dispatch(Bump())
        store.dispatch(Bump())
        #expect(screen.values == [0, 1, 2])
    }

    /// An unsubscribe from the first `newState` stops the subscription.
    @Test func unsubscribingFromTheFirstNewStateStopsIt() {
        func check<S>(_ store: FastStoreReSwift.Store<S>, _ read: @escaping (S) -> Int) {
            let screen = Screen()
            screen.onNewState = { [unowned screen] _ in store.unsubscribe(screen) }
            store.subscribe(screen) { $0.select(read) }
            store.dispatch(Bump())
            #expect(screen.values == [0])
            #expect(store._subscriptionCount == 0)
        }
        check(plainStore()) { $0.count }
        check(versionedStore()) { $0.count }
    }

    /// Subscribing runs the new subscription's selector, not every
    /// other's: n subscriptions cost n selector runs, on plain state too.
    @Test func subscribingRunsOnlyTheNewSelector() {
        func check<S>(_ store: FastStoreReSwift.Store<S>, _ read: @escaping (S) -> Int) {
            let calls = Calls()
            let screens = (0..<50).map { _ in Screen() }
            for screen in screens {
                store.subscribe(screen) { $0.select { state in calls.count += 1; return read(state) } }
            }
            #expect(calls.count == 50)
            #expect(screens.allSatisfy { $0.values == [0] })
        }
        check(plainStore()) { $0.count }
        check(versionedStore()) { $0.count }
    }
}

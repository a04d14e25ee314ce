@_spi(Testing) import FastStore
import FastStoreReSwift

// One subscriber workload, written five ways. The state holds N small items;
// 100 consumers (or subscribers) each watch one item's `done`; every
// dispatch toggles one watched item, so every dispatch delivers exactly one
// callback. The ways:
//
// - `FacadePlainFixture`: ReSwift code moved to FastStoreReSwift by
//   changing its import. A ReSwift reducer (`(Action, State?) -> State`), a
//   `StoreSubscriber` whose `newState` feeds a ReSwiftConsumer-style
//   `StateConsumer` (`add({ state in state?.items[i].done }, ...)`).
// - `FacadeSubscriptionsFixture`: the same store, no consumer: 100 ReSwift
//   subscribers, each `subscribe(s) { $0.select { $0.items[i].done } }`
//   (skipping repeats, as ReSwift does for `Equatable` selections).
//   On versioned state, the same subscribers' `select` chains are tracked
//   by the facade's consumer.
// - `FacadeVersionedFixture`: the facade code again, with the state
//   wrapped in `Versioned` and its array made a `VersionedList` (the first
//   step of moving a screen to versioned state: the reducer, subscriber and
//   consumer lines do not change).
// - `NativePlainFixture`: FastStore's `Store` with an `inout` reducer
//   and `StateConsumer.connect(to:)`, on the plain state.
// - `NativeVersionedFixture`: the same on the versioned state.
//
// The fixtures are concrete classes, as an app's subscribers are: a generic
// subscriber called through the facade's protocol witness would run
// unspecialized, which is the fixture's cost, not the facade's.
//
// The states are not `Equatable`, as ReSwiftConsumer's README state is not:
// the facade's `subscribe(_:)` does not compare whole states.

struct Item: Equatable, Sendable {
    var id: Int
    var done: Bool
}

struct PlainState: Sendable {
    var items: [Item]
    var filter: Int
}

struct ItemsState: Sendable {
    var items: VersionedList<Item>
    var filter: Int
}

typealias VersionedState = Versioned<ItemsState>

/// The facade's action (ReSwift's `Action` protocol).
struct ToggleItem: FastStoreReSwift.Action {
    let index: Int
}

/// The native action.
enum Toggle: Sendable { case toggle(Int) }

/// A state the benchmarks can build, select from and toggle, plain or
/// versioned. The selectors below are written out per state type, as an app
/// writes them; this only builds states and reducers.
protocol BenchmarkState {
    init(itemCount: Int)
    mutating func toggle(_ index: Int)
}

extension PlainState: BenchmarkState {
    init(itemCount: Int) {
        self.init(items: (0..<itemCount).map { Item(id: $0, done: false) }, filter: 0)
    }

    mutating func toggle(_ index: Int) { items[index].done.toggle() }
}

extension VersionedState: BenchmarkState {
    init(itemCount: Int) {
        self.init(ItemsState(items: VersionedList((0..<itemCount).map { Item(id: $0, done: false) }), filter: 0))
    }

    mutating func toggle(_ index: Int) { self.items[index].done.toggle() }
}

/// A ReSwift reducer: returns a new state (the store still holds the old
/// one, so copy-on-write storage is copied: the whole array for plain state,
/// one path of nodes for versioned state).
@inline(never)
func reSwiftReducer<State: BenchmarkState>(action: FastStoreReSwift.Action, state: State?) -> State {
    var state = state ?? State(itemCount: 0)
    if let action = action as? ToggleItem { state.toggle(action.index) }
    return state
}

/// FastStore's reducer: mutates the state in place.
@inline(never)
func inoutReducer<State: BenchmarkState>(_ state: inout State, _ action: Toggle) {
    switch action { case .toggle(let index): state.toggle(index) }
}

/// The item consumer `k` of `consumers` watches among `n` items.
@inline(__always)
func watched(_ k: Int, consumers: Int, n: Int) -> Int { k * (n / consumers) }

/// Cycles through the watched items: the action index of each dispatch.
struct WatchedCycle {
    let n: Int, consumers: Int
    var next = 0

    @inline(__always)
    mutating func advance() -> Int {
        let index = watched(next, consumers: consumers, n: n)
        next = next == consumers - 1 ? 0 : next + 1
        return index
    }
}

// MARK: Through the facade

/// A ReSwift store, and a subscriber feeding ReSwiftConsumer-style
/// consumers from `newState` (ReSwiftConsumer's README pattern).
final class FacadePlainFixture: FastStoreReSwift.StoreSubscriber, @unchecked Sendable {
    typealias StoreSubscriberStateType = PlainState

    let store: FastStoreReSwift.Store<PlainState>
    let consumer = FastStoreReSwift.StateConsumer<PlainState>()
    var delivered = 0
    var cycle: WatchedCycle

    init(n: Int, consumers: Int) {
        cycle = WatchedCycle(n: n, consumers: consumers)
        store = FastStoreReSwift.Store<PlainState>(reducer: reSwiftReducer, state: PlainState(itemCount: n))
        for k in 0..<consumers {
            let index = watched(k, consumers: consumers, n: n)
            consumer.add({ state in state?.items[index].done }) { [unowned self] (_: Bool?, _: Bool) in delivered &+= 1 }
        }
        store.subscribe(self)
    }

    func newState(state: PlainState) {
        consumer.consume(newState: state)
    }

    @inline(__always)
    func dispatch() {
        store.dispatch(ToggleItem(index: cycle.advance()))
    }
}

/// The same facade code on versioned state.
final class FacadeVersionedFixture: FastStoreReSwift.StoreSubscriber, @unchecked Sendable {
    typealias StoreSubscriberStateType = VersionedState

    let store: FastStoreReSwift.Store<VersionedState>
    let consumer = FastStoreReSwift.StateConsumer<VersionedState>()
    var delivered = 0
    var cycle: WatchedCycle

    init(n: Int, consumers: Int) {
        cycle = WatchedCycle(n: n, consumers: consumers)
        store = FastStoreReSwift.Store<VersionedState>(reducer: reSwiftReducer, state: VersionedState(itemCount: n))
        for k in 0..<consumers {
            let index = watched(k, consumers: consumers, n: n)
            consumer.add({ state in state?.items[index].done }) { [unowned self] (_: Bool?, _: Bool) in delivered &+= 1 }
        }
        store.subscribe(self)
    }

    func newState(state: VersionedState) {
        consumer.consume(newState: state)
    }

    @inline(__always)
    func dispatch() {
        store.dispatch(ToggleItem(index: cycle.advance()))
    }
}

/// One ReSwift subscriber of one item.
final class ItemSubscriber: FastStoreReSwift.StoreSubscriber {
    typealias StoreSubscriberStateType = Bool
    let onNewState: () -> Void
    init(_ onNewState: @escaping () -> Void) { self.onNewState = onNewState }
    func newState(state: Bool) { onNewState() }
}

/// A ReSwift store and 100 selecting subscribers, each
/// `subscribe(s) { $0.select { $0.items[i].done } }` (skipping repeats, as
/// ReSwift does for `Equatable` selections). On versioned state their
/// `select` chains are tracked by the facade's consumer, so a dispatch runs
/// only the selector of the item it toggled.
final class FacadeSubscriptionsFixture<State: BenchmarkState>: @unchecked Sendable {
    let store: FastStoreReSwift.Store<State>
    var subscribers: [ItemSubscriber] = []
    var delivered = 0
    var cycle: WatchedCycle

    /// - Parameter done: The selector of item `index`'s `done`, as an app
    ///   writes it for its state type.
    init(n: Int, consumers: Int, done: (_ index: Int) -> (State) -> Bool) {
        cycle = WatchedCycle(n: n, consumers: consumers)
        store = FastStoreReSwift.Store<State>(reducer: reSwiftReducer, state: State(itemCount: n))
        for k in 0..<consumers {
            let subscriber = ItemSubscriber { [unowned self] in delivered &+= 1 }
            subscribers.append(subscriber)
            let selector = done(watched(k, consumers: consumers, n: n))
            store.subscribe(subscriber) { $0.select(selector) }
        }
    }

    @inline(__always)
    func dispatch() {
        store.dispatch(ToggleItem(index: cycle.advance()))
    }
}

// MARK: Through FastStore's API

/// FastStore's store and a consumer connected to it.
final class NativePlainFixture: @unchecked Sendable {
    let store: FastStore.Store<PlainState, Toggle>
    let consumer = FastStore.StateConsumer<PlainState>()
    var subscription: StoreSubscription?
    var delivered = 0
    var cycle: WatchedCycle

    init(n: Int, consumers: Int) {
        cycle = WatchedCycle(n: n, consumers: consumers)
        store = FastStore.Store(state: PlainState(itemCount: n), reducer: inoutReducer)
        for k in 0..<consumers {
            let index = watched(k, consumers: consumers, n: n)
            consumer.add({ $0.items[index].done }) { [unowned self] (_: Bool?, _: Bool) in delivered &+= 1 }
        }
        subscription = consumer.connect(to: store)
    }

    @inline(__always)
    func dispatch() {
        store.dispatch(.toggle(cycle.advance()))
    }
}

/// The same on versioned state.
final class NativeVersionedFixture: @unchecked Sendable {
    let store: FastStore.Store<VersionedState, Toggle>
    let consumer = FastStore.StateConsumer<VersionedState>()
    var subscription: StoreSubscription?
    var delivered = 0
    var cycle: WatchedCycle

    init(n: Int, consumers: Int) {
        cycle = WatchedCycle(n: n, consumers: consumers)
        store = FastStore.Store(state: VersionedState(itemCount: n), reducer: inoutReducer)
        for k in 0..<consumers {
            let index = watched(k, consumers: consumers, n: n)
            consumer.add({ $0.items[index].done }) { [unowned self] (_: Bool?, _: Bool) in delivered &+= 1 }
        }
        subscription = consumer.connect(to: store)
    }

    @inline(__always)
    func dispatch() {
        store.dispatch(.toggle(cycle.advance()))
    }
}

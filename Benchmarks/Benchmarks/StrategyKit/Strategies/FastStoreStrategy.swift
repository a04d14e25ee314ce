import BenchCore
import FastStore

/// Strategy 3, FastStore: `Store` with an `inout` reducer over versioned
/// state (`Versioned` nodes, `VersionedList`s with per-element stamps) and
/// `StateConsumer`s fed from store subscriptions. A consumer whose
/// selection read only unchanged nodes is skipped without running its
/// selector; a write copies only the nodes on its path.
///
/// As apps use it (ReSwiftConsumer's style): each screen, one selection of
/// ``Workload/selections`` (a row, a header field, the list, a derived
/// count, a tree leaf), has its own `StateConsumer`, connected to the store
/// by `consumer.connect(to: store)`. ``FastStoreSharedStrategy`` is the same
/// with every screen's selector in one shared consumer (one subscription).
/// The consumers are made in ``attachConsumers()``, so that their bytes
/// count as the consumers' (`consumerBytes`), not the state's.
///
/// Workloads that insert, remove, move or sort items get
/// ``FastStoreEditableStrategy`` instead (the items in an `IdentifiedList`,
/// rows read by id); ``make(_:)`` picks.
public final class FastStoreStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fastStore.name
    public static let summary = StrategyCatalog.fastStore.summary

    public static func make(_ workload: Workload) -> any BenchStrategy {
        workload.idsArePositions ? FastStoreStrategy(workload: workload) : FastStoreEditableStrategy(workload: workload)
    }

    private let workload: Workload
    private let store: FSStore<FSState>
    /// One consumer per screen, or one for all (``sharedConsumer``).
    private var consumers: [StateConsumer<FSState>] = []
    private var subscriptions: [StoreSubscription] = []
    /// Whether the list screen is lazy (``FastStoreLazyStrategy``).
    private let lazyList: Bool
    /// Whether every screen's selector is in one consumer
    /// (``FastStoreSharedStrategy``).
    private let sharedConsumer: Bool
    public let sink = Sink()

    public convenience init(workload: Workload) {
        self.init(workload: workload, lazyList: false, sharedConsumer: false)
    }

    init(workload: Workload, lazyList: Bool, sharedConsumer: Bool, onMainStore: Bool = false) {
        self.workload = workload
        self.lazyList = lazyList
        self.sharedConsumer = sharedConsumer
        store = FSStore(FSState(workload), fastStoreReduce, onMainStore: onMainStore)
    }

    public func attachConsumers() {
        // NB: `connect` consumes the current state at once (every selector's
        // baseline; no callback in the `(old, new)` shape, as full-copy's
        // first kept state), then every state the store publishes, with its
        // drain's changes.
        if sharedConsumer {
            let consumer = StateConsumer<FSState>()
            for selection in workload.selections { addScreen(selection, to: consumer) }
            consumers = [consumer]
            subscriptions = [store.connect(consumer)]
            return
        }
        consumers.reserveCapacity(workload.selections.count)
        subscriptions.reserveCapacity(workload.selections.count)
        for selection in workload.selections {
            let consumer = StateConsumer<FSState>()
            addScreen(selection, to: consumer)
            consumers.append(consumer)
            subscriptions.append(store.connect(consumer))
        }
    }

    /// Adds the selector and callback of one screen to `consumer`.
    private func addScreen(_ selection: Selection, to consumer: StateConsumer<FSState>) {
        let sink = self.sink
        switch selection {
        case .field:
            consumer.add(counted { $0.counter }) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .field) }
        case .entity(let k):
            consumer.add(counted { $0.items[k] }) { (_: Item, new: Item) in sink.deliver(Digest.of(new), .entity) }
        case .list where lazyList:
            // NB: the rows are positions here: which rows exist is the
            // count, a read of the list's structure.
            consumer.add(counted { $0.items.count }) { (_: Int, new: Int) in sink.deliver(Digest.ofList(count: new), .list) }
        case .list:
            consumer.add(counted { $0.items }) { (_: VersionedList<Item>, new: VersionedList<Item>) in sink.deliver(Digest.ofList(count: new.count), .list) }
        case .derived:
            // NB: the count as an app declares it: a memoized derived
            // value over the fold the items keep (`DoneCount`).
            let done = Derived { (state: FSState) in state.items.fold(DoneCount.self) }
            consumer.add(counted { done($0) }) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .derived) }
        case .treeLeaf(let path):
            consumer.add(counted { state -> Int in
                var node = state.tree
                for i in path { node = node.children[i] }
                return node.number
            }) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .treeLeaf) }
        case .rowSelected(let k):
            consumer.add(counted { $0.selected == k }) { (_: Bool, new: Bool) in sink.deliver(Digest.ofHighlight(k, new), .rowSelected) }
        }
    }

    public func dispatch(_ action: WorkloadAction) {
        store.dispatch(action)
    }

    public func waitUntilIdle() {
        store.waitUntilIdle()
    }

    public func contentDigest() -> Int {
        let state = store.state
        return ContentDigest.of(items: state.items, tree: state.tree, counter: state.counter, selected: state.selected)
    }

    /// `select`, counting its runs.
    private func counted<T>(_ select: @escaping (FSState) -> T) -> (FSState) -> T {
        let sink = self.sink
        return { state in
            sink.evaluated()
            return select(state)
        }
    }
}

/// The faststore strategy on workloads that insert, remove, move or sort
/// items: the items in an `IdentifiedList<Item>`, a row consumer selecting
/// `state.items[id: k]` (an `Item?`, `nil` once removed), the structural
/// actions as `IdentifiedList` operations. Same store and consumers (one per
/// screen, or one shared) as ``FastStoreStrategy``, which builds it through
/// ``FastStoreStrategy/make(_:)``.
public final class FastStoreEditableStrategy: BenchStrategy, @unchecked Sendable {
    public static var name: String { FastStoreStrategy.name }
    public static var summary: String { FastStoreStrategy.summary }

    private let workload: Workload
    private let store: FSStore<FSEditableState>
    /// One consumer per screen, or one for all (``sharedConsumer``).
    private var consumers: [StateConsumer<FSEditableState>] = []
    private var subscriptions: [StoreSubscription] = []
    /// Whether the list screen is lazy (``FastStoreLazyStrategy``).
    private let lazyList: Bool
    /// Whether every screen's selector is in one consumer
    /// (``FastStoreSharedStrategy``).
    private let sharedConsumer: Bool
    public let sink = Sink()

    public convenience init(workload: Workload) {
        self.init(workload: workload, lazyList: false, sharedConsumer: false)
    }

    init(workload: Workload, lazyList: Bool, sharedConsumer: Bool, onMainStore: Bool = false) {
        self.workload = workload
        self.lazyList = lazyList
        self.sharedConsumer = sharedConsumer
        store = FSStore(FSEditableState(workload), fastStoreEditableReduce, onMainStore: onMainStore)
    }

    public func attachConsumers() {
        if sharedConsumer {
            let consumer = StateConsumer<FSEditableState>()
            for selection in workload.selections { addScreen(selection, to: consumer) }
            consumers = [consumer]
            subscriptions = [store.connect(consumer)]
            return
        }
        consumers.reserveCapacity(workload.selections.count)
        subscriptions.reserveCapacity(workload.selections.count)
        for selection in workload.selections {
            let consumer = StateConsumer<FSEditableState>()
            addScreen(selection, to: consumer)
            consumers.append(consumer)
            subscriptions.append(store.connect(consumer))
        }
    }

    /// Adds the selector and callback of one screen to `consumer`.
    private func addScreen(_ selection: Selection, to consumer: StateConsumer<FSEditableState>) {
        let sink = self.sink
        switch selection {
        case .field:
            consumer.add(counted { $0.counter }) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .field) }
        case .entity(let k):
            // NB: the `(T?, T?)` shape: called on every change, to `nil`
            // included. Its first evaluation (at connect) counts as a
            // change from nothing; the harness counts callbacks from
            // after `attachConsumers`.
            consumer.add(counted { $0.items[id: k] }) { (_: Item?, new: Item?) in sink.deliver(Digest.of(new), .entity) }
        case .list where lazyList:
            // NB: which rows exist, in what order: the ids, a read of
            // the list's structure (not woken by a row's change).
            consumer.add(counted { $0.items.ids }) { (_: [Int], new: [Int]) in sink.deliver(Digest.ofList(count: new.count), .list) }
        case .list:
            consumer.add(counted { $0.items }) { (_: IdentifiedList<Item>, new: IdentifiedList<Item>) in sink.deliver(Digest.ofList(count: new.count), .list) }
        case .derived:
            // NB: the count as an app declares it: a memoized derived
            // value over the fold the items keep (`DoneCount`).
            let done = Derived { (state: FSEditableState) in state.items.fold(DoneCount.self) }
            consumer.add(counted { done($0) }) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .derived) }
        case .treeLeaf(let path):
            consumer.add(counted { state -> Int in
                var node = state.tree
                for i in path { node = node.children[i] }
                return node.number
            }) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .treeLeaf) }
        case .rowSelected(let k):
            consumer.add(counted { $0.selected == k }) { (_: Bool, new: Bool) in sink.deliver(Digest.ofHighlight(k, new), .rowSelected) }
        }
    }

    public func dispatch(_ action: WorkloadAction) {
        store.dispatch(action)
    }

    public func waitUntilIdle() {
        store.waitUntilIdle()
    }

    public func contentDigest() -> Int {
        let state = store.state
        return ContentDigest.of(items: state.items, tree: state.tree, counter: state.counter, selected: state.selected)
    }

    private func counted<T>(_ select: @escaping (FSEditableState) -> T) -> (FSEditableState) -> T {
        let sink = self.sink
        return { state in
            sink.evaluated()
            return select(state)
        }
    }
}

/// FastStore with a lazy list screen, as ``ObservationLazyStrategy``'s: the
/// same store, state and consumers as ``FastStoreStrategy``, but the list
/// screen selects which rows exist (the count where rows are positions,
/// the ids where rows move), a read of the list's structure that a row's
/// change does not wake, instead of the whole list. Its list screen is
/// called when the rows change (``LazyListReference/rowChanges(_:actions:)``),
/// not at every row write; every other consumer delivers what full-copy's
/// does.
///
/// Each screen has its own consumer, as in ``FastStoreStrategy``.
///
/// ``make(_:)`` returns the faststore strategy built with the lazy screen
/// itself (no forwarding on the measured path); an instance of this type,
/// from `init(workload:)`, forwards to one.
public final class FastStoreLazyStrategy: ForwardingStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fastStoreLazy.name
    public static let summary = StrategyCatalog.fastStoreLazy.summary

    public static func make(_ workload: Workload) -> any BenchStrategy {
        fastStoreVariant(workload, lazyList: true, sharedConsumer: false, onMainStore: false)
    }

    public let base: any BenchStrategy

    public init(workload: Workload) { base = Self.make(workload) }
}

/// FastStore with one shared consumer: the same store, state, selectors and
/// callbacks as ``FastStoreStrategy``, but every screen's selector is in one
/// `StateConsumer`, connected to the store once. What the faststore strategy
/// measured before it gave each screen its own consumer; the CI check
/// compares the two (`Benchmarks/Thresholds/ci.json`: per-screen consumers
/// within 1.2× of one shared consumer on `screens-100` and `screens-1000`).
///
/// ``make(_:)`` returns the faststore strategy built with the shared
/// consumer itself (no forwarding on the measured path); an instance of
/// this type, from `init(workload:)`, forwards to one.
public final class FastStoreSharedStrategy: ForwardingStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fastStoreShared.name
    public static let summary = StrategyCatalog.fastStoreShared.summary

    public static func make(_ workload: Workload) -> any BenchStrategy {
        fastStoreVariant(workload, lazyList: false, sharedConsumer: true, onMainStore: false)
    }

    public let base: any BenchStrategy

    public init(workload: Workload) { base = Self.make(workload) }
}

/// FastStore on a `MainStore`: the same state, consumers (one per screen)
/// and callbacks as ``FastStoreStrategy``, on the store a UI uses, which
/// reduces on the main thread and writes in place. Driven from the main
/// thread: in the threads pattern the other threads' dispatches are queued
/// and drained on the main thread, which the harness keeps servicing the
/// main queue (``BenchStrategy/drainsOnMainThread``).
public final class FastStoreMainStrategy: ForwardingStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fastStoreMain.name
    public static let summary = StrategyCatalog.fastStoreMain.summary
    public static var drainsOnMainThread: Bool { true }

    public static func make(_ workload: Workload) -> any BenchStrategy {
        fastStoreVariant(workload, lazyList: false, sharedConsumer: false, onMainStore: true)
    }

    public let base: any BenchStrategy

    public init(workload: Workload) { base = Self.make(workload) }
}

/// ``FastStoreLazyStrategy`` on a `MainStore`: the lazy list screen on the
/// store for a UI, the like for like of `observation-lazy` (whose list
/// screen reads the list's identity, count and order, not its rows).
public final class FastStoreMainLazyStrategy: ForwardingStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fastStoreMainLazy.name
    public static let summary = StrategyCatalog.fastStoreMainLazy.summary
    public static var drainsOnMainThread: Bool { true }

    public static func make(_ workload: Workload) -> any BenchStrategy {
        fastStoreVariant(workload, lazyList: true, sharedConsumer: false, onMainStore: true)
    }

    public let base: any BenchStrategy

    public init(workload: Workload) { base = Self.make(workload) }
}

/// A FastStore strategy's variant for `workload`: over `VersionedList` rows
/// where the ids are positions, else over an `IdentifiedList`.
func fastStoreVariant(_ workload: Workload, lazyList: Bool, sharedConsumer: Bool, onMainStore: Bool) -> any BenchStrategy {
    workload.idsArePositions
        ? FastStoreStrategy(workload: workload, lazyList: lazyList, sharedConsumer: sharedConsumer, onMainStore: onMainStore)
        : FastStoreEditableStrategy(workload: workload, lazyList: lazyList, sharedConsumer: sharedConsumer, onMainStore: onMainStore)
}

/// The store a FastStore strategy drives: a `Store`, or a `MainStore`
/// (whose strategy runs on the main thread: its calls assume the main
/// actor, and trap elsewhere).
enum FSStore<State> {
    case store(Store<State, WorkloadAction>)
    case main(MainStore<State, WorkloadAction>)

    init(_ state: State, _ reducer: @escaping Reducer<State, WorkloadAction>, onMainStore: Bool) {
        if onMainStore {
            let parts = _UncheckedBox((state, reducer))
            let made = MainActor.assumeIsolated { _UncheckedBox(MainStore(state: parts.value.0, reducer: parts.value.1)) }
            self = .main(made.value)
        } else {
            self = .store(Store(state: state, reducer: reducer))
        }
    }

    @inline(__always)
    func dispatch(_ action: WorkloadAction) {
        switch self {
        case .store(let store): store.dispatch(action)
        case .main(let store): store.dispatch(action)
        }
    }

    func waitUntilIdle() {
        switch self {
        case .store(let store): store.waitUntilIdle()
        case .main(let store): store.waitUntilIdle()
        }
    }

    var state: State {
        switch self {
        case .store(let store): return store.state
        case .main(let store): return MainActor.assumeIsolated { _UncheckedBox(store.state) }.value
        }
    }

    func connect(_ consumer: StateConsumer<State>) -> StoreSubscription {
        switch self {
        case .store(let store): return consumer.connect(to: store)
        case .main(let store):
            let consumer = _UncheckedBox(consumer)
            return MainActor.assumeIsolated { _UncheckedBox(consumer.value.connect(to: store)) }.value
        }
    }
}

/// Carries a value the strategy uses on one thread across
/// `MainActor.assumeIsolated`, which wants a `Sendable` result.
struct _UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A named variant of the faststore strategy: ``BenchStrategy/make(_:)``
/// builds the faststore strategy configured for it (no forwarding on the
/// measured path); an instance from `init(workload:)` forwards to one.
public protocol ForwardingStrategy: BenchStrategy {
    var base: any BenchStrategy { get }
}

extension ForwardingStrategy {
    public var sink: Sink { base.sink }
    public func attachConsumers() { base.attachConsumers() }
    public func dispatch(_ action: WorkloadAction) { base.dispatch(action) }
    public func waitUntilIdle() { base.waitUntilIdle() }
    public func contentDigest() -> Int { base.contentDigest() }
}

import BenchCore
import FastStore

/// Strategy 3, FastStore: `Store` with an `inout` reducer over versioned
/// state (`Versioned` nodes, `VersionedList`s with per-element stamps) and a
/// `StateConsumer` fed from a store subscription. A consumer whose
/// selection read only unchanged nodes is skipped without running its
/// selector; a write copies only the nodes on its path.
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
    private let store: Store<FSState, WorkloadAction>
    private let consumer = StateConsumer<FSState>()
    private var subscription: StoreSubscription?
    /// Whether the list screen is lazy (``FastStoreLazyStrategy``).
    private let lazyList: Bool
    public let sink = Sink()

    public convenience init(workload: Workload) {
        self.init(workload: workload, lazyList: false)
    }

    init(workload: Workload, lazyList: Bool) {
        self.workload = workload
        self.lazyList = lazyList
        store = Store(state: FSState(workload), reducer: fastStoreReduce)
    }

    public func attachConsumers() {
        let sink = self.sink
        for selection in workload.selections {
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
            }
        }
        // Consumes the current state now (every consumer's baseline; no
        // callback in the `(old, new)` shape, as full-copy's first kept state),
        // then every state the store publishes, with its drain's changes.
        subscription = consumer.connect(to: store)
    }

    public func dispatch(_ action: WorkloadAction) {
        store.dispatch(action)
    }

    public func waitUntilIdle() {
        store.waitUntilIdle()
    }

    public func contentDigest() -> Int {
        let state = store.state
        return ContentDigest.of(items: state.items, tree: state.tree, counter: state.counter)
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
/// actions as `IdentifiedList` operations. Same store and consumer as
/// ``FastStoreStrategy``, which builds it through ``FastStoreStrategy/make(_:)``.
public final class FastStoreEditableStrategy: BenchStrategy, @unchecked Sendable {
    public static var name: String { FastStoreStrategy.name }
    public static var summary: String { FastStoreStrategy.summary }

    private let workload: Workload
    private let store: Store<FSEditableState, WorkloadAction>
    private let consumer = StateConsumer<FSEditableState>()
    private var subscription: StoreSubscription?
    /// Whether the list screen is lazy (``FastStoreLazyStrategy``).
    private let lazyList: Bool
    public let sink = Sink()

    public convenience init(workload: Workload) {
        self.init(workload: workload, lazyList: false)
    }

    init(workload: Workload, lazyList: Bool) {
        self.workload = workload
        self.lazyList = lazyList
        store = Store(state: FSEditableState(workload), reducer: fastStoreEditableReduce)
    }

    public func attachConsumers() {
        let sink = self.sink
        for selection in workload.selections {
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
            }
        }
        subscription = consumer.connect(to: store)
    }

    public func dispatch(_ action: WorkloadAction) {
        store.dispatch(action)
    }

    public func waitUntilIdle() {
        store.waitUntilIdle()
    }

    public func contentDigest() -> Int {
        let state = store.state
        return ContentDigest.of(items: state.items, tree: state.tree, counter: state.counter)
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
/// ``make(_:)`` returns the faststore strategy built with the lazy screen
/// itself (no forwarding on the measured path); an instance of this type,
/// from `init(workload:)`, forwards to one.
public final class FastStoreLazyStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fastStoreLazy.name
    public static let summary = StrategyCatalog.fastStoreLazy.summary

    public static func make(_ workload: Workload) -> any BenchStrategy {
        workload.idsArePositions
            ? FastStoreStrategy(workload: workload, lazyList: true)
            : FastStoreEditableStrategy(workload: workload, lazyList: true)
    }

    private let base: any BenchStrategy

    public init(workload: Workload) { base = Self.make(workload) }

    public var sink: Sink { base.sink }
    public func attachConsumers() { base.attachConsumers() }
    public func dispatch(_ action: WorkloadAction) { base.dispatch(action) }
    public func waitUntilIdle() { base.waitUntilIdle() }
    public func contentDigest() -> Int { base.contentDigest() }
}

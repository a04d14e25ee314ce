import BenchCore
import FastStore
import Synchronization

/// Ablation, full copy over persistent collections: the full-copy
/// strategy's consumer (keep the previous state, run every selector on the
/// old and the new state, compare with `==`) over faststore's versioned
/// state and reducer, without FastStore's `Store` or `StateConsumer`.
///
/// Keeping the previous state costs O(1) (a write copies only the nodes on
/// its path, the rest stays shared) and `==` skips shared nodes, so this
/// isolates what persistence buys over full-copy (same consumer, other
/// state) and what FastStore's stamps and skipping buy over persistence
/// alone (same state, other consumer). The collections still take their
/// stamps on each write (they cannot be turned off); nothing reads them
/// but `==`'s shortcut for identical nodes.
///
/// Workloads that insert, remove, move or sort items get
/// ``FullCopyPersistentEditableStrategy`` (the `IdentifiedList` shape).
public final class FullCopyPersistentStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fullCopyPersistent.name
    public static let summary = StrategyCatalog.fullCopyPersistent.summary

    public static func make(_ workload: Workload) -> any BenchStrategy {
        workload.idsArePositions ? FullCopyPersistentStrategy(workload: workload) : FullCopyPersistentEditableStrategy(workload: workload)
    }

    private let workload: Workload
    private let lock = Mutex(())
    private var state: FSState
    private let consumer = _PersistentFullCopyConsumer()
    public let sink = Sink()

    public init(workload: Workload) {
        self.workload = workload
        state = FSState(workload)
    }

    public func attachConsumers() {
        consumer.previous = state
        consumer.sink = sink
        let sink = self.sink
        for selection in workload.selections {
            switch selection {
            case .field: consumer.add({ $0.counter }) { _, new in sink.deliver(Digest.of(new), .field) }
            case .entity(let k): consumer.add({ $0.items[k] }) { _, new in sink.deliver(Digest.of(new), .entity) }
            case .list: consumer.add({ $0.items }) { _, new in sink.deliver(Digest.ofList(count: new.count), .list) }
            case .derived:
                consumer.add({ state -> Int in
                    var n = 0
                    for item in state.items where item.done { n += 1 }
                    return n
                }) { _, new in sink.deliver(Digest.of(new), .derived) }
            case .treeLeaf(let path): consumer.add({ versionedLeaf($0.tree, path) }) { _, new in sink.deliver(Digest.of(new), .treeLeaf) }
            case .rowSelected(let k): consumer.add({ $0.selected == k }) { _, new in sink.deliver(Digest.ofHighlight(k, new), .rowSelected) }
            }
        }
    }

    public func dispatch(_ action: WorkloadAction) {
        lock.withLock { _ in
            fastStoreReduce(&state, action)
            consumer.consume(newState: state)
        }
    }

    public func contentDigest() -> Int {
        lock.withLock { _ in ContentDigest.of(items: state.items, tree: state.tree, counter: state.counter, selected: state.selected) }
    }
}

/// The ablation on workloads that insert, remove, move or sort items: the
/// same consumer over ``FSEditableState`` (rows by id in an `IdentifiedList`).
public final class FullCopyPersistentEditableStrategy: BenchStrategy, @unchecked Sendable {
    public static var name: String { FullCopyPersistentStrategy.name }
    public static var summary: String { FullCopyPersistentStrategy.summary }

    private let workload: Workload
    private let lock = Mutex(())
    private var state: FSEditableState
    private let consumer = _PersistentEditableFullCopyConsumer()
    public let sink = Sink()

    public init(workload: Workload) {
        self.workload = workload
        state = FSEditableState(workload)
    }

    public func attachConsumers() {
        consumer.previous = state
        consumer.sink = sink
        let sink = self.sink
        for selection in workload.selections {
            switch selection {
            case .field: consumer.add({ $0.counter }) { _, new in sink.deliver(Digest.of(new), .field) }
            case .entity(let k): consumer.add({ $0.items[id: k] }) { _, new in sink.deliver(Digest.of(new), .entity) }
            case .list: consumer.add({ $0.items }) { _, new in sink.deliver(Digest.ofList(count: new.count), .list) }
            case .derived:
                consumer.add({ state -> Int in
                    var n = 0
                    for item in state.items where item.done { n += 1 }
                    return n
                }) { _, new in sink.deliver(Digest.of(new), .derived) }
            case .treeLeaf(let path): consumer.add({ versionedLeaf($0.tree, path) }) { _, new in sink.deliver(Digest.of(new), .treeLeaf) }
            case .rowSelected(let k): consumer.add({ $0.selected == k }) { _, new in sink.deliver(Digest.ofHighlight(k, new), .rowSelected) }
            }
        }
    }

    public func dispatch(_ action: WorkloadAction) {
        lock.withLock { _ in
            fastStoreEditableReduce(&state, action)
            consumer.consume(newState: state)
        }
    }

    public func contentDigest() -> Int {
        lock.withLock { _ in ContentDigest.of(items: state.items, tree: state.tree, counter: state.counter, selected: state.selected) }
    }
}

/// The value of the leaf at `path`.
func versionedLeaf(_ tree: Versioned<FSTreeFields>, _ path: [Int]) -> Int {
    var node = tree
    for i in path { node = node.children[i] }
    return node.number
}

/// ``_FullCopyConsumer`` over ``FSState`` (concrete for the same reason).
final class _PersistentFullCopyConsumer {
    var previous: FSState?
    var sink: Sink?
    private var entries: [(FSState, FSState) -> Void] = []

    func add<Selected: Equatable>(_ select: @escaping (FSState) -> Selected, _ callback: @escaping (Selected?, Selected) -> Void) {
        let sink = self.sink
        entries.append { old, new in
            sink?.evaluated(2)
            let before = select(old)
            let after = select(new)
            if before != after { callback(before, after) }
        }
    }

    func consume(newState: FSState) {
        if let old = previous {
            for entry in entries { entry(old, newState) }
        }
        previous = newState
    }
}

/// ``_FullCopyConsumer`` over ``FSEditableState``.
final class _PersistentEditableFullCopyConsumer {
    var previous: FSEditableState?
    var sink: Sink?
    private var entries: [(FSEditableState, FSEditableState) -> Void] = []

    func add<Selected: Equatable>(_ select: @escaping (FSEditableState) -> Selected, _ callback: @escaping (Selected?, Selected) -> Void) {
        let sink = self.sink
        entries.append { old, new in
            sink?.evaluated(2)
            let before = select(old)
            let after = select(new)
            if before != after { callback(before, after) }
        }
    }

    func consume(newState: FSEditableState) {
        if let old = previous {
            for entry in entries { entry(old, newState) }
        }
        previous = newState
    }
}

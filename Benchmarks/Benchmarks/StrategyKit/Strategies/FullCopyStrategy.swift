import BenchCore
import Synchronization

/// Strategy 1, full copy + compare: the consumer keeps the previous state
/// and, on every new state, runs every selector on the old and the new
/// state and compares the two selections with `==` (what ReSwiftConsumer's
/// `StateConsumer` does). The store reduces `inout`; the copy the consumer
/// holds shares buffers with the store's state, so the first write of a
/// dispatch copies every copy-on-write buffer on the written path.
public final class FullCopyStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fullCopy.name
    public static let summary = StrategyCatalog.fullCopy.summary

    private let workload: Workload
    private let lock = Mutex(())
    private var state: AppState
    private let consumer = _FullCopyConsumer()
    public let sink = Sink()

    public init(workload: Workload) {
        self.workload = workload
        state = AppState(workload)
    }

    public func attachConsumers() {
        consumer.previous = state
        consumer.sink = sink
        let sink = self.sink
        for selection in workload.selections {
            switch selection {
            case .field: consumer.add(ValueSelectors.field) { _, new in sink.deliver(Digest.of(new), .field) }
            case .entity(let k) where workload.idsArePositions:
                consumer.add({ ValueSelectors.entity($0, k) }) { _, new in sink.deliver(Digest.of(new), .entity) }
            case .entity(let k): consumer.add({ ValueSelectors.entity($0, id: k) }) { _, new in sink.deliver(Digest.of(new), .entity) }
            case .list: consumer.add(ValueSelectors.list) { _, new in sink.deliver(Digest.ofList(count: new.count), .list) }
            case .derived: consumer.add(ValueSelectors.derived) { _, new in sink.deliver(Digest.of(new), .derived) }
            case .treeLeaf(let path): consumer.add({ ValueSelectors.treeLeaf($0, path) }) { _, new in sink.deliver(Digest.of(new), .treeLeaf) }
            case .rowSelected(let k): consumer.add({ ValueSelectors.rowSelected($0, k) }) { _, new in sink.deliver(Digest.ofHighlight(k, new), .rowSelected) }
            }
        }
    }

    public func dispatch(_ action: WorkloadAction) {
        lock.withLock { _ in
            reduce(&state, action)
            consumer.consume(newState: state)
        }
    }

    public func contentDigest() -> Int { lock.withLock { _ in ContentDigest.of(state) } }
}

/// The consumer of the full-copy strategy: the previous state plus one
/// closure per consumer that selects from both states and compares.
// NB: concrete, not generic over the state: closures stored in a generic
// class take the state indirectly, which cost full-copy ~23 instructions
// per selector run (3.6% per dispatch on todo) under callgrind.
final class _FullCopyConsumer {
    var previous: AppState?
    var sink: Sink?
    private var entries: [(AppState, AppState) -> Void] = []

    func add<Selected: Equatable>(_ select: @escaping (AppState) -> Selected, _ callback: @escaping (Selected?, Selected) -> Void) {
        let sink = self.sink
        entries.append { old, new in
            sink?.evaluated(2)
            let before = select(old)
            let after = select(new)
            if before != after { callback(before, after) }
        }
    }

    func consume(newState: AppState) {
        if let old = previous {
            for entry in entries { entry(old, newState) }
        }
        previous = newState
    }
}

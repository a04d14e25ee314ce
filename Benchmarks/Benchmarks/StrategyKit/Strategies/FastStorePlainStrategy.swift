import BenchCore
import FastStore

/// FastStore over plain value state: the same `Store` and `StateConsumer`
/// as the faststore strategy, on full-copy's `AppState` (arrays, no
/// versioned nodes) and reducer.
///
/// Nothing versioned means nothing to track: every consume runs every
/// selector once and compares it with the selection kept from the last
/// consume (full-copy runs each selector twice, on the old and the new
/// state). It measures what FastStore costs when an app has not adopted
/// versioned state yet: no faster than full-copy in kind (O(consumers) per
/// dispatch, plus the copy-on-write of the written arrays), and it must be
/// no slower (`Benchmarks/Thresholds/ci.json`).
public final class FastStorePlainStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.fastStorePlain.name
    public static let summary = StrategyCatalog.fastStorePlain.summary

    private let workload: Workload
    private let store: Store<AppState, WorkloadAction>
    private let consumer = StateConsumer<AppState>()
    private var subscription: StoreSubscription?
    public let sink = Sink()

    public init(workload: Workload) {
        self.workload = workload
        store = Store(state: AppState(workload), reducer: { reduce(&$0, $1) })
    }

    public func attachConsumers() {
        let sink = self.sink
        for selection in workload.selections {
            switch selection {
            case .field:
                consumer.add(counted(ValueSelectors.field)) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .field) }
            case .entity(let k) where workload.idsArePositions:
                consumer.add(counted { ValueSelectors.entity($0, k) }) { (_: Item, new: Item) in sink.deliver(Digest.of(new), .entity) }
            case .entity(let k):
                // NB: the `(T?, T?)` shape, as the faststore strategy's rows
                // by id: called on every change, to `nil` included.
                consumer.add(counted { ValueSelectors.entity($0, id: k) }) { (_: Item?, new: Item?) in sink.deliver(Digest.of(new), .entity) }
            case .list:
                consumer.add(counted(ValueSelectors.list)) { (_: [Item], new: [Item]) in sink.deliver(Digest.ofList(count: new.count), .list) }
            case .derived:
                consumer.add(counted(ValueSelectors.derived)) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .derived) }
            case .treeLeaf(let path):
                consumer.add(counted { ValueSelectors.treeLeaf($0, path) }) { (_: Int, new: Int) in sink.deliver(Digest.of(new), .treeLeaf) }
            case .rowSelected(let k):
                consumer.add(counted { ValueSelectors.rowSelected($0, k) }) { (_: Bool, new: Bool) in sink.deliver(Digest.ofHighlight(k, new), .rowSelected) }
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

    public func contentDigest() -> Int { ContentDigest.of(store.state) }

    /// `select`, counting its runs.
    private func counted<T>(_ select: @escaping (AppState) -> T) -> (AppState) -> T {
        let sink = self.sink
        return { state in
            sink.evaluated()
            return select(state)
        }
    }
}

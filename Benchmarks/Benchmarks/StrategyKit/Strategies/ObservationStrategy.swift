import Observation
import Synchronization

/// Strategy 4, Observation: the state as `@Observable` classes mutated in
/// place; each consumer runs its selector inside `withObservationTracking`.
/// `onChange` fires once (in `willSet`, before the new value is stored), so
/// the strategy marks the consumer pending and, once the action is applied,
/// runs the selector again under a new tracking scope and delivers the new
/// value: the invalidate-then-re-read cycle SwiftUI uses. Class-based, so
/// there is no old value to compare with, and a consumer is called for any
/// write to what it read, equal or not.
///
/// A consumer of the whole list reads every row's fields (as a list screen
/// rendering every row would); a derived consumer reads every `done`.
public final class ObservationStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = "observation"
    public static let summary = "@Observable classes + withObservationTracking, re-registered after each change"

    private let workload: Workload
    private let lock = Mutex(())
    private let model: AppModel
    private var consumers: [_ObservationConsumer] = []
    fileprivate var pending: [_ObservationConsumer] = []
    private let sink = Sink()

    public init(workload: Workload) {
        self.workload = workload
        model = AppModel(workload)
    }

    public func attachConsumers() {
        let sink = self.sink
        for selection in workload.selections {
            let consumer: _ObservationConsumer
            switch selection {
            case .field:
                consumer = _ObservationConsumer(owner: self) { m in Digest.of(m.counter) }
            case .entity(let k):
                consumer = _ObservationConsumer(owner: self) { m in
                    let item = m.items[k]
                    return Digest.of(Item(id: item.id, title: item.title, done: item.done, count: item.count))
                }
            case .list:
                consumer = _ObservationConsumer(owner: self) { m in
                    var rows = 0
                    for item in m.items {
                        // Read every field a row shows.
                        _ = item.title; _ = item.done; _ = item.count
                        rows += 1
                    }
                    return Digest.ofList(count: rows)
                }
            case .derived:
                consumer = _ObservationConsumer(owner: self) { m in
                    var n = 0
                    for item in m.items where item.done { n += 1 }
                    return Digest.of(n)
                }
            case .treeLeaf(let path):
                consumer = _ObservationConsumer(owner: self) { m in
                    var node = m.tree
                    for i in path { node = node.children[i] }
                    return Digest.of(node.value)
                }
            }
            consumer.sink = sink
            consumers.append(consumer)
            _ = consumer.track(model)
        }
    }

    public func dispatch(_ action: WorkloadAction) {
        lock.withLock { _ in
            model.apply(action)
            // `onChange` ran synchronously during `apply`, filling `pending`.
            let fired = pending
            pending.removeAll(keepingCapacity: true)
            for consumer in fired {
                consumer.sink?.deliver(consumer.track(model))
            }
        }
    }

    public var delivered: Sink.Totals { sink.current }
    public var evaluations: Int { sink.evaluations }
}

final class _ObservationConsumer: @unchecked Sendable {
    unowned let owner: ObservationStrategy
    let select: (AppModel) -> Int
    var sink: Sink?

    init(owner: ObservationStrategy, select: @escaping (AppModel) -> Int) {
        self.owner = owner
        self.select = select
    }

    /// Runs the selector under a new tracking scope; returns its digest.
    func track(_ model: AppModel) -> Int {
        sink?.evaluated()
        return withObservationTracking {
            select(model)
        } onChange: { [unowned self] in
            // NB: called inside `willSet` on the dispatching thread, which
            // holds the strategy's lock.
            owner.pending.append(self)
        }
    }
}

import BenchCore
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
/// Every consumer selects from the root model, as the value strategies'
/// selectors do: a consumer of the whole list reads every row's fields (as
/// a non-lazy list screen rendering every row would); a derived consumer
/// reads every `done`; a row consumer reads `items` and then its row (by
/// position while ids are positions, else by id through an unobserved
/// index), so it also depends on the list's structure. See
/// ``ObservationLazyStrategy`` for the lazy-list model.
public final class ObservationStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.observation.name
    public static let summary = StrategyCatalog.observation.summary
    public static var comparesValues: Bool { false }

    private let workload: Workload
    private let engine: _ObservationEngine
    public var sink: Sink { engine.sink }

    public init(workload: Workload) {
        self.workload = workload
        engine = _ObservationEngine(AppModel(workload))
    }

    public func attachConsumers() {
        let byPosition = workload.idsArePositions
        for selection in workload.selections {
            switch selection {
            case .field:
                engine.add(.field) { m in Digest.of(m.counter) }
            case .entity(let k) where byPosition:
                engine.add(.entity) { m in Digest.of(m.items[k].value) }
            case .entity(let k):
                engine.add(.entity) { m in Digest.of(m.item(id: k)?.value) }
            case .list:
                engine.add(.list) { m in
                    var rows = 0
                    for item in m.items {
                        // Read every field a row shows.
                        _ = item.title; _ = item.done; _ = item.count
                        rows += 1
                    }
                    return Digest.ofList(count: rows)
                }
            case .derived:
                engine.add(.derived, _ObservationEngine.remaining)
            case .treeLeaf(let path):
                engine.add(.treeLeaf) { m in _ObservationEngine.leaf(m, path) }
            case .rowSelected(let k):
                // A row's highlight, as a SwiftUI row reads it:
                // `model.selected == item.id`.
                engine.add(.rowSelected) { m in Digest.ofHighlight(k, m.selected == k) }
            }
        }
    }

    public func dispatch(_ action: WorkloadAction) { engine.dispatch(action) }
    public func contentDigest() -> Int { engine.contentDigest() }
}

/// The model, its consumers and the dispatch loop the observation
/// strategies share.
final class _ObservationEngine: @unchecked Sendable {
    let lock = Mutex(())
    let model: AppModel
    let sink = Sink()
    private var consumers: [_ObservationConsumer] = []
    fileprivate var pending: [_ObservationConsumer] = []

    init(_ model: AppModel) { self.model = model }

    /// Adds a consumer of `kind` and runs its selector once (its baseline,
    /// not a callback).
    func add(_ kind: SelectKind, _ select: @escaping (AppModel) -> Int) {
        let consumer = _ObservationConsumer(owner: self, kind: kind, select: select)
        consumers.append(consumer)
        _ = consumer.track(model)
    }

    func dispatch(_ action: WorkloadAction) {
        lock.withLock { _ in
            model.apply(action)
            // `onChange` ran synchronously during `apply`, filling `pending`.
            let fired = pending
            pending.removeAll(keepingCapacity: true)
            for consumer in fired {
                sink.deliver(consumer.track(model), consumer.kind)
            }
        }
    }

    func contentDigest() -> Int { lock.withLock { _ in model.contentDigest() } }

    /// How many items are done: reads every item's `done`.
    static func remaining(_ m: AppModel) -> Int {
        var n = 0
        for item in m.items where item.done { n += 1 }
        return Digest.of(n)
    }

    /// The value of the leaf at `path`.
    static func leaf(_ m: AppModel, _ path: [Int]) -> Int {
        var node = m.tree
        for i in path { node = node.children[i] }
        return Digest.of(node.value)
    }
}

final class _ObservationConsumer: @unchecked Sendable {
    unowned let owner: _ObservationEngine
    let kind: SelectKind
    let select: (AppModel) -> Int

    init(owner: _ObservationEngine, kind: SelectKind, select: @escaping (AppModel) -> Int) {
        self.owner = owner
        self.kind = kind
        self.select = select
    }

    /// Runs the selector under a new tracking scope; returns its digest.
    func track(_ model: AppModel) -> Int {
        owner.sink.evaluated()
        return withObservationTracking {
            select(model)
        } onChange: { [unowned self] in
            // NB: called inside `willSet` on the dispatching thread, which
            // holds the engine's lock.
            owner.pending.append(self)
        }
    }
}

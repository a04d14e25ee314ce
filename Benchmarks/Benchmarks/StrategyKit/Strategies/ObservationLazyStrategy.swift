import BenchCore
import Observation

/// Observation as SwiftUI's `List` / `LazyVStack` uses it: the same
/// `@Observable` model and invalidate-then-re-read cycle as
/// ``ObservationStrategy``, but
///
/// - a row consumer (a row on screen) holds its item's object, handed over
///   once when the row is created (as `ForEach` hands each row its element),
///   and tracks only that object's fields: not `items`, not other rows. When
///   actions can remove items it also reads the object's `isRemoved` flag,
///   which the reducer sets on removal, and then delivers "absent";
/// - the list screen tracks the list itself (`items`: which objects, how
///   many, in what order) and reads each row's `id` (a `let`, not observed)
///   to identify rows, but no row's fields: a row's field change reaches
///   that row only, and the list screen re-runs only when an item is
///   inserted, removed, moved or the list sorted.
///
/// Rows off screen are not modelled at all (the profile's entity consumers
/// are the rows on screen). Derived, field and tree-leaf consumers are as in
/// ``ObservationStrategy``. The list screen is therefore called on
/// structural changes only, where the value strategies' list consumers are
/// called whenever any row changes: the self-test checks it against its
/// own rule (one call per structural action, with the new count).
public final class ObservationLazyStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.observationLazy.name
    public static let summary = StrategyCatalog.observationLazy.summary
    public static var comparesValues: Bool { false }

    private let workload: Workload
    private let engine: _ObservationEngine
    public var sink: Sink { engine.sink }

    public init(workload: Workload) {
        self.workload = workload
        engine = _ObservationEngine(AppModel(workload))
    }

    public func attachConsumers() {
        let removable = !workload.idsArePositions
        let model = engine.model
        for selection in workload.selections {
            switch selection {
            case .field:
                engine.add(.field) { m in Digest.of(m.counter) }
            case .entity(let k):
                guard let item = model.object(id: k) else { preconditionFailure("row \(k) watches an id the initial list lacks") }
                if removable {
                    // The reducer flags what a replacement or a clear drops.
                    model.rowsHoldObjects = true
                    engine.add(.entity) { _ in item.isRemoved ? Digest.absent : Digest.of(item.value) }
                } else {
                    engine.add(.entity) { _ in Digest.of(item.value) }
                }
            case .list:
                engine.add(.list) { m in
                    var rows = 0
                    // NB: the `id >= 0` test keeps the read of each row's
                    // identity, as `ForEach` reads them to diff its rows.
                    for item in m.items where item.id >= 0 { rows += 1 }
                    return Digest.ofList(count: rows)
                }
            case .derived:
                engine.add(.derived, _ObservationEngine.remaining)
            case .treeLeaf(let path):
                engine.add(.treeLeaf) { m in _ObservationEngine.leaf(m, path) }
            case .rowSelected(let k):
                engine.add(.rowSelected) { m in Digest.ofHighlight(k, m.selected == k) }
            }
        }
    }

    public func dispatch(_ action: WorkloadAction) { engine.dispatch(action) }
    public func contentDigest() -> Int { engine.contentDigest() }
}

/// What the lazy list screen delivers on a workload run one action at a
/// time: one callback per list consumer for each structural action that
/// writes the list (an insert, a remove or move of a present item, any
/// sort, replacement or clear, an append, a swap of two positions), with the count after it. Computed by replaying the actions on
/// the value state.
public enum LazyListReference {
    public static func totals(_ workload: Workload, actions: ArraySlice<WorkloadAction>) -> Sink.Totals {
        let listConsumers = workload.selections.filter { $0 == .list }.count
        let sink = Sink()
        var state = AppState(workload)
        for action in actions {
            let writes: Bool
            switch action.kind {
            case .insertEntities(let placements): writes = !placements.isEmpty
            case .removeEntities(let ids): writes = ids.contains { state.positions?[$0] != nil }
            case .moveEntities(let placements): writes = placements.contains { state.positions?[$0.id] != nil }
            case .sortEntities: writes = true
            // An assignment of `items` (a clear of an empty list included).
            case .replaceEntities, .clearEntities: writes = true
            case .appendEntities(_, let count): writes = count > 0
            case .swapEntities: writes = state.items.count >= 4
            case .updateEntities, .setField, .updateTreeLeaf, .selectEntity: writes = false
            }
            reduce(&state, action)
            if writes {
                for _ in 0..<listConsumers { sink.deliver(Digest.ofList(count: state.items.count), .list) }
            }
        }
        return sink.byKind[.list]
    }

    /// What a lazy list screen that compares its selection delivers
    /// (``FastStoreLazyStrategy``): one callback per list consumer for each
    /// action after which the rows (their ids, in order) differ, with the
    /// count after it. A sort or a move that leaves the order as it was is
    /// no callback, unlike ``totals(_:actions:)``'s. Computed by replaying
    /// the actions on the value state.
    public static func rowChanges(_ workload: Workload, actions: ArraySlice<WorkloadAction>) -> Sink.Totals {
        let listConsumers = workload.selections.filter { $0 == .list }.count
        let sink = Sink()
        var state = AppState(workload)
        var rows = state.items.map(\.id)
        for action in actions {
            reduce(&state, action)
            let after = state.items.map(\.id)
            if after != rows {
                for _ in 0..<listConsumers { sink.deliver(Digest.ofList(count: after.count), .list) }
            }
            rows = after
        }
        return sink.byKind[.list]
    }
}

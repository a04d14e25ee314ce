import BenchCore
import Synchronization

/// Strategy 2, ReSwift-like: one subscriber per selection with skip-repeats,
/// and a reducer that returns a new state while the store still holds the
/// old one, so every copy-on-write buffer the reducer writes is copied on
/// every dispatch. Every subscriber is notified on every dispatch; it runs
/// its selector on the new state and compares with the last value it saw.
public final class ReSwiftLikeStrategy: BenchStrategy, @unchecked Sendable {
    public static let name = StrategyCatalog.reswiftLike.name
    public static let summary = StrategyCatalog.reswiftLike.summary

    private let workload: Workload
    private let lock = Mutex(())
    private var state: AppState
    private var subscribers: [any _Subscriber] = []
    public let sink = Sink()

    public init(workload: Workload) {
        self.workload = workload
        state = AppState(workload)
    }

    /// The reducer in ReSwift's shape: `(Action, State) -> State`.
    static func reducer(_ action: WorkloadAction, _ state: AppState) -> AppState {
        var next = state
        reduce(&next, action)
        return next
    }

    public func attachConsumers() {
        let sink = self.sink
        for selection in workload.selections {
            switch selection {
            case .field: subscribe(ValueSelectors.field) { sink.deliver(Digest.of($0), .field) }
            case .entity(let k) where workload.idsArePositions:
                subscribe({ ValueSelectors.entity($0, k) }) { sink.deliver(Digest.of($0), .entity) }
            case .entity(let k): subscribe({ ValueSelectors.entity($0, id: k) }) { sink.deliver(Digest.of($0), .entity) }
            case .list: subscribe(ValueSelectors.list) { sink.deliver(Digest.ofList(count: $0.count), .list) }
            case .derived: subscribe(ValueSelectors.derived) { sink.deliver(Digest.of($0), .derived) }
            case .treeLeaf(let path): subscribe({ ValueSelectors.treeLeaf($0, path) }) { sink.deliver(Digest.of($0), .treeLeaf) }
            case .rowSelected(let k): subscribe({ ValueSelectors.rowSelected($0, k) }) { sink.deliver(Digest.ofHighlight(k, $0), .rowSelected) }
            }
        }
    }

    private func subscribe<Selected: Equatable>(_ select: @escaping (AppState) -> Selected, _ newState: @escaping (Selected) -> Void) {
        subscribers.append(_SkipRepeatsSubscriber(select: select, last: select(state), sink: sink, newState: newState))
    }

    public func dispatch(_ action: WorkloadAction) {
        lock.withLock { _ in
            let next = Self.reducer(action, state)
            state = next
            for subscriber in subscribers { subscriber.receive(next) }
        }
    }

    public func contentDigest() -> Int { lock.withLock { _ in ContentDigest.of(state) } }
}

protocol _Subscriber: AnyObject {
    func receive(_ state: AppState)
}

final class _SkipRepeatsSubscriber<Selected: Equatable>: _Subscriber {
    let select: (AppState) -> Selected
    var last: Selected
    let sink: Sink
    let newState: (Selected) -> Void

    init(select: @escaping (AppState) -> Selected, last: Selected, sink: Sink, newState: @escaping (Selected) -> Void) {
        self.select = select
        self.last = last
        self.sink = sink
        self.newState = newState
    }

    func receive(_ state: AppState) {
        sink.evaluated()
        let selected = select(state)
        if selected != last {
            last = selected
            newState(selected)
        }
    }
}

import Benchmark
@_spi(Testing) import FastStore
import Observation

// What SwiftUI does with a list of 1,000 rows on screen: each row's `body`
// is one `withObservationTracking` call reading that row's title, and an
// invalidated row is evaluated (tracked) again. One row is renamed per
// action (round robin, never the same row twice in a row). Reported per
// action: dispatch + reduce + publish + Observation's notifications +
// re-tracking every row that was invalidated.
//
// - `Observation.FastStore.perNode.rows1000`: a store of versioned state
//   (`Versioned<AppState>` with an `IdentifiedList` of rows); each row
//   reads `store.state.rows[id: id]?.title`. One row is invalidated.
// - `Observation.FastStore.wholeState.rows1000`: the same store and reads
//   over plain state (`[Row]`): the store is observed as a whole, so every
//   row is invalidated and tracked again on every action.
// - `Observation.Classes.rows1000`: Apple's Observation with one
//   observable class per row (what `@Observable` expands to), mutated in
//   place. One row is invalidated.
//
// Names have no spaces (package-benchmark's threshold files break on them).

let rowCount = 1_000

struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
}

struct VersionedApp: Sendable { var rows: IdentifiedList<Row> }
struct PlainApp: Sendable { var rows: [Row] }

enum Rename: Sendable { case rename(Int, String) }

/// The rows a tracking fired for, in the order they fired.
final class FiredRows: @unchecked Sendable {
    var ids: [Int] = []
}

/// Row `id` tracked: `read` inside `withObservationTracking`, its id
/// appended to `fired` when it is invalidated.
@inline(__always)
func track(_ id: Int, _ fired: FiredRows, _ read: () -> Void) {
    let box = _Unchecked(fired)
    withObservationTracking(read, onChange: { box.value.ids.append(id) })
}

struct _Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The stores' fixture: a store, 1,000 tracked rows, the next row to rename.
final class StoreFixture<State>: @unchecked Sendable {
    let store: Store<State, Rename>
    let read: (Store<State, Rename>, Int) -> String?
    let fired = FiredRows()
    var next = 0
    var step = 0

    init(_ store: Store<State, Rename>, read: @escaping (Store<State, Rename>, Int) -> String?) {
        self.store = store
        self.read = read
        for id in 0..<rowCount { retrack(id) }
    }

    @inline(__always)
    func retrack(_ id: Int) {
        let store = store, read = read
        track(id, fired) { _ = read(store, id) }
    }

    /// One action; returns the number of rows invalidated (each tracked again).
    @inline(__always)
    func act() -> Int {
        step &+= 1
        store.dispatch(.rename(next, "title \(step)"))
        next = (next + 7) % rowCount
        let invalidated = fired.ids
        fired.ids.removeAll(keepingCapacity: true)
        for id in invalidated { retrack(id) }
        return invalidated.count
    }
}

func makePerNode() -> StoreFixture<Versioned<VersionedApp>> {
    let rows = IdentifiedList((0..<rowCount).map { Row(id: $0, title: "row \($0)") })
    let store = Store<Versioned<VersionedApp>, Rename>(state: Versioned(VersionedApp(rows: rows))) { state, action in
        switch action { case .rename(let id, let title): state.rows[id: id]?.title = title }
    }
    return StoreFixture(store) { store, id in store.state.rows[id: id]?.title }
}

func makeWholeState() -> StoreFixture<PlainApp> {
    let store = Store<PlainApp, Rename>(state: PlainApp(rows: (0..<rowCount).map { Row(id: $0, title: "row \($0)") })) { state, action in
        switch action { case .rename(let id, let title): state.rows[id].title = title }
    }
    return StoreFixture(store) { store, id in store.state.rows[id].title }
}

/// One observable class per row, as `@Observable` expands it.
final class RowModel: Observable, @unchecked Sendable {
    private let registrar = ObservationRegistrar()
    private var _title: String
    init(title: String) { _title = title }
    var title: String {
        get { registrar.access(self, keyPath: \.title); return _title }
        set { registrar.withMutation(of: self, keyPath: \.title) { _title = newValue } }
    }
}

final class ClassesFixture: @unchecked Sendable {
    let rows = (0..<rowCount).map { RowModel(title: "row \($0)") }
    let fired = FiredRows()
    var next = 0
    var step = 0

    init() { for id in 0..<rowCount { retrack(id) } }

    @inline(__always)
    func retrack(_ id: Int) {
        let row = rows[id]
        track(id, fired) { _ = row.title }
    }

    @inline(__always)
    func act() -> Int {
        step &+= 1
        rows[next].title = "title \(step)"
        next = (next + 7) % rowCount
        let invalidated = fired.ids
        fired.ids.removeAll(keepingCapacity: true)
        for id in invalidated { retrack(id) }
        return invalidated.count
    }
}

/// Fixtures are built once per process and reused by every sample.
final class Fixtures: @unchecked Sendable {
    static let shared = Fixtures()
    private var cache: [String: AnyObject] = [:]
    func get<F: AnyObject>(_ key: String, _ make: () -> F) -> F {
        if let fixture = cache[key] as? F { return fixture }
        let fixture = make()
        cache[key] = fixture
        return fixture
    }
}

let benchmarks: @Sendable () -> Void = {
    precondition(!_DrainSimulator.internalChecksEnabled,
                 "FastStore was built with FASTSTORE_INTERNAL_CHECKS (a debug build): benchmark a release build")

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(1),
        maxIterations: 100_000
    )

    Benchmark("Observation.FastStore.perNode.rows1000") { benchmark in
        let fixture = Fixtures.shared.get("perNode", makePerNode)
        var invalidated = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { invalidated += fixture.act() }
        benchmark.stopMeasurement()
        precondition(invalidated == benchmark.scaledIterations.count, "one row invalidated per action")
    }

    Benchmark("Observation.Classes.rows1000") { benchmark in
        let fixture = Fixtures.shared.get("classes") { ClassesFixture() }
        var invalidated = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { invalidated += fixture.act() }
        benchmark.stopMeasurement()
        precondition(invalidated == benchmark.scaledIterations.count, "one row invalidated per action")
    }

    Benchmark("Observation.FastStore.wholeState.rows1000",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                   warmupIterations: 2, scalingFactor: .one,
                                   maxDuration: .seconds(1), maxIterations: 10_000)) { benchmark in
        let fixture = Fixtures.shared.get("wholeState", makeWholeState)
        var invalidated = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { invalidated += fixture.act() }
        benchmark.stopMeasurement()
        precondition(invalidated == rowCount * benchmark.scaledIterations.count, "every row invalidated per action")
    }
}

import Benchmark
import SuiteSupport
import CHeapBytes
@_spi(Testing) import FastStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Undo, redo and time travel on a todo-like state: a `VersionedList` of
// `Versioned` rows, N = 1,000,000 items (`HISTORY_N` overrides it for quick
// runs), a `StoreHistory` that recorded 10,000 actions (`HISTORY_ACTIONS`),
// each toggling one row, and 100 row consumers (a `StateConsumer`
// connected to the store, each reading one row's `done`). The actions
// toggle the consumers' rows in turn, so a dispatch and an undo each change
// one consumer's selection.
//
// - `History.retainedBytesPerAction`: the growth of the process's resident
//   memory while the actions are recorded (/proc/self/statm, through the
//   `CHeapBytes` shim; package-benchmark's malloc interposer leaves glibc's
//   counters at zero), over the number of actions: what the history keeps
//   per entry (the paths each toggle copied, the entry), the store's
//   bounded change log included. One sample, a custom metric; Linux only
//   (0 elsewhere). `HISTORY_VERBOSE=1` prints the two figures. Goal: at
//   most 1 KiB.
// - `History.dispatch.consumers100`: one consumed dispatch (toggle a row one
//   consumer reads, with the history recording), the baseline.
// - `History.undo.consumers100`: one move of one entry (undo and redo
//   alternately). Goal: within 2x the dispatch.
// - `History.jump1000.consumers100`: one jump across 1,000 entries (back and
//   forth alternately): 100 rows written 10 times each in between.
//
// The same four on the README's shape, named `History.readme.*`: an
// `IdentifiedList` of the README's `Todo` (an id, a 24-byte title, `done`;
// no `Versioned` per row), the reducer `state.todos[id: id]?.done.toggle()`
// and consumers reading `$0.todos[id: id]?.done`.
//
// The same four again on the README's shape with the history keeping
// patches (`StoreHistory(store, storage: .patches)`), named
// `History.patches.*`: what an entry retains is its batch's `StatePatch`,
// and a move applies patches before it republishes. Goals (durable-state
// issue): at most 256 bytes per action, an undo within 1.5x the dispatch,
// a jump across 1,000 entries within 1 ms.
//
// The 100 row consumers above share one `StateConsumer`. The seed's users
// give each screen its own: `History.readme.*.screens100` and
// `History.patches.*.screens100` measure the dispatch, undo and jump with
// 100 `StateConsumer`s, each reading one row and connected to the store on
// its own.
//
// Names have no spaces (package-benchmark's threshold files break on them).

func environmentInt(_ name: String, _ fallback: Int) -> Int {
    guard let text = getenv(name), let value = Int(String(cString: text)) else { return fallback }
    return value
}

let itemCount = environmentInt("HISTORY_N", 1_000_000)
let actionCount = environmentInt("HISTORY_ACTIONS", 10_000)
let consumerCount = 100

struct Todo: Equatable, Sendable {
    let id: Int
    var done = false
}

struct TodoApp: Sendable {
    var items: VersionedList<Versioned<Todo>>
    var filter = 0
}

/// The README's todo: an id, a title and whether it is done.
struct ReadmeTodo: Identifiable, Equatable, Codable, Sendable {
    let id: Int
    var title: String
    var done = false
}

struct ReadmeApp: Codable, Sendable {
    var todos: IdentifiedList<ReadmeTodo>
    var filter = "all"
}

enum TodoAction: Sendable { case toggle(Int) }

/// Resident bytes of the process (see `CHeapBytes`).
func residentBytes() -> Int { Int(cheapbytes_resident()) }

final class CallCount: @unchecked Sendable { var value = 0 }

/// A state shape the fixture records a history of: its initial store and
/// how a row consumer reads row `row`.
protocol HistoryShape {
    associatedtype Root: Sendable
    static func makeStore() -> Store<Versioned<Root>, TodoAction>
    static func addRowConsumer(_ consumer: StateConsumer<Versioned<Root>>, row: Int, calls: CallCount)
    static func makeHistory(_ store: Store<Versioned<Root>, TodoAction>, limit: Int) -> StoreHistory<Versioned<Root>, TodoAction>
}

extension HistoryShape {
    static func makeHistory(_ store: Store<Versioned<Root>, TodoAction>, limit: Int) -> StoreHistory<Versioned<Root>, TodoAction> {
        StoreHistory(store, limit: .entries(limit))
    }
}

/// The benchmarks' own shape: `Versioned` rows in a `VersionedList`, by position.
enum VersionedRows: HistoryShape {
    static func makeStore() -> Store<Versioned<TodoApp>, TodoAction> {
        let items = VersionedList((0..<itemCount).map { Versioned(Todo(id: $0)) })
        return Store(state: Versioned(TodoApp(items: items))) { state, action in
            switch action { case .toggle(let i): state.items[i].done.toggle() }
        }
    }
    static func addRowConsumer(_ consumer: StateConsumer<Versioned<TodoApp>>, row: Int, calls: CallCount) {
        consumer.add({ $0.items[row].done }) { (_: Bool) in calls.value += 1 }
    }
}

/// The README's shape: plain `Todo` values in an `IdentifiedList`, by id.
enum ReadmeRows: HistoryShape {
    static func makeStore() -> Store<Versioned<ReadmeApp>, TodoAction> {
        let todos = IdentifiedList((0..<itemCount).map { ReadmeTodo(id: $0, title: "todo \($0) ..................") })
        return Store(state: Versioned(ReadmeApp(todos: todos))) { state, action in
            switch action { case .toggle(let id): state.todos[id: id]?.done.toggle() }
        }
    }
    static func addRowConsumer(_ consumer: StateConsumer<Versioned<ReadmeApp>>, row: Int, calls: CallCount) {
        consumer.add({ $0.todos[id: row]?.done }) { (_: Bool?) in calls.value += 1 }
    }
}

/// The README's shape with a history that keeps patches.
enum ReadmePatchRows: HistoryShape {
    static func makeStore() -> Store<Versioned<ReadmeApp>, TodoAction> { ReadmeRows.makeStore() }
    static func addRowConsumer(_ consumer: StateConsumer<Versioned<ReadmeApp>>, row: Int, calls: CallCount) {
        ReadmeRows.addRowConsumer(consumer, row: row, calls: calls)
    }
    static func makeHistory(_ store: Store<Versioned<ReadmeApp>, TodoAction>, limit: Int) -> StoreHistory<Versioned<ReadmeApp>, TodoAction> {
        StoreHistory(store, limit: .entries(limit), storage: .patches)
    }
}

final class HistoryFixture<Shape: HistoryShape>: @unchecked Sendable {
    let store: Store<Versioned<Shape.Root>, TodoAction>
    let history: StoreHistory<Versioned<Shape.Root>, TodoAction>
    /// One shared consumer, or one per screen.
    let consumers: [StateConsumer<Versioned<Shape.Root>>]
    let subscriptions: [StoreSubscription]
    /// Consumer callbacks so far.
    let calls: CallCount
    var step = 0
    let retainedBytesPerAction: Int

    static func row(_ k: Int) -> Int { (k % consumerCount) * (itemCount / consumerCount) }

    /// - Parameter screens: a `StateConsumer` per row consumer, each
    ///   connected on its own, rather than one shared.
    init(screens: Bool) {
        let store = Shape.makeStore()
        let history = Shape.makeHistory(store, limit: actionCount + 1)
        let counter = CallCount()
        let consumers = (0..<(screens ? consumerCount : 1)).map { _ in StateConsumer<Versioned<Shape.Root>>() }
        for k in 0..<consumerCount {
            Shape.addRowConsumer(consumers[screens ? k : 0], row: Self.row(k), calls: counter)
        }
        subscriptions = consumers.map { $0.connect(to: store) }
        let before = residentBytes()
        for i in 0..<actionCount { store.dispatch(.toggle(Self.row(i))) }
        let after = residentBytes()
        retainedBytesPerAction = (after - before) / max(1, actionCount)
        if getenv("HISTORY_VERBOSE") != nil {
            print("HistoryBenchmarks: \(Shape.self): resident \(before) -> \(after) bytes over \(actionCount) actions")
        }
        self.store = store
        self.history = history
        self.consumers = consumers
        self.calls = counter
    }

    func dispatch() {
        step &+= 1
        store.dispatch(.toggle(Self.row(step)))
    }

    func undoOrRedo() {
        step &+= 1
        if step & 1 == 1 { try! history.undo() } else { try! history.redo() }
    }

    func jump(across distance: Int) {
        step &+= 1
        let newest = history.indices.upperBound
        try! history.jump(to: step & 1 == 1 ? newest - distance : newest)
    }
}

final class Fixtures: @unchecked Sendable {
    static let shared = Fixtures()
    // NB: fixtures are kept, not released, so that the memory a released
    // one freed is not reused by the next one's recording (the retained
    // bytes are a growth of resident memory).
    private var cache: [String: AnyObject] = [:]
    func get<Shape: HistoryShape>(_ key: String, _ shape: Shape.Type, screens: Bool = false) -> HistoryFixture<Shape> {
        let name = "\(Shape.self).\(key).\(screens)"
        if let fixture = cache[name] as? HistoryFixture<Shape> { return fixture }
        let fixture = HistoryFixture<Shape>(screens: screens)
        cache[name] = fixture
        return fixture
    }
}

let benchmarks: @Sendable () -> Void = {
    precondition(!_DrainSimulator.internalChecksEnabled,
                 "FastStore was built with FASTSTORE_INTERNAL_CHECKS (a debug build): benchmark a release build")

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .one,
        maxDuration: suiteMaxDuration(.seconds(2)),
        maxIterations: 10_000,
        thresholds: allocationCountGate
    )

    let retained = BenchmarkMetric.custom("retainedBytesPerAction", polarity: .prefersSmaller, useScalingFactor: false)
    func register<Shape: HistoryShape>(_ prefix: String, _ shape: Shape.Type, perScreen: Bool) {
        Benchmark("\(prefix).retainedBytesPerAction",
                  configuration: .init(metrics: [retained], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
            let fixture = Fixtures.shared.get("retained", shape)
            benchmark.measurement(retained, fixture.retainedBytesPerAction)
        }

        for screens in perScreen ? [false, true] : [false] {
            let suffix = screens ? "screens100" : "consumers100"
            Benchmark("\(prefix).dispatch.\(suffix)") { benchmark in
                let fixture = Fixtures.shared.get("dispatch", shape, screens: screens)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { fixture.dispatch() }
                benchmark.stopMeasurement()
            }

            Benchmark("\(prefix).undo.\(suffix)") { benchmark in
                let fixture = Fixtures.shared.get("undo", shape, screens: screens)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { fixture.undoOrRedo() }
                benchmark.stopMeasurement()
                precondition(fixture.history.indices.count == actionCount + 1, "moves record nothing")
            }

            Benchmark("\(prefix).jump1000.\(suffix)") { benchmark in
                let fixture = Fixtures.shared.get("jump", shape, screens: screens)
                let distance = min(1_000, actionCount)
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations { fixture.jump(across: distance) }
                benchmark.stopMeasurement()
            }
        }
    }
    register("History", VersionedRows.self, perScreen: false)
    register("History.readme", ReadmeRows.self, perScreen: true)
    register("History.patches", ReadmePatchRows.self, perScreen: true)
}

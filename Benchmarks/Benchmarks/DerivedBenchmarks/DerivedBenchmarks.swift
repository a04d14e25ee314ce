import Benchmark
import SuiteSupport
import CHeapBytes
@_spi(Testing) import FastStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A 'remaining' count over a whole todo list, beside 100 row consumers:
// N = 1,000,000 items (`DERIVED_N` overrides it for quick runs) in an
// `IdentifiedList`, a `StateConsumer` connected to the store with 100
// consumers each reading one row's `done`, and one consumer of the count.
// Each dispatch toggles one row (a row some consumer reads, in turn), so
// the count changes at every dispatch and one row consumer is called.
//
// - `Derived.remaining.fold.consumers100`: the count as a memoized
//   `Derived` over a fold the list keeps (`CountingSummary`, attached):
//   updated along the written path, read in O(1). Goal: at most 2 µs.
// - `Derived.remaining.foldDirect.consumers100`: the same fold selected
//   directly by the consumer, without a `Derived`: what the memo costs.
// - `Derived.remaining.recount.consumers100`: the count recomputed by the
//   consumer's selector over the whole list (what a selector does without
//   a fold): O(N) per dispatch.
// - `Derived.remaining.none.consumers100`: the 100 row consumers alone:
//   what the count costs on top.
// - `Derived.foldBytesPerElement`: the growth of resident memory when the
//   fold is attached to the list, over N (/proc/self/statm through
//   `CHeapBytes`; Linux only, 0 elsewhere), times 1,000: thousandths of a
//   byte per element. `DERIVED_VERBOSE=1` prints the two figures. Goal: at
//   most 1,000 (1 byte per element).
// - `Derived.foldBytesPerElement.readmeTodo`: the same, for the README's
//   `Todo` (an id, a title and `done`): a bigger element, so fewer per
//   leaf and more branches per element carry the fold's columns.
//
// Names have no spaces (package-benchmark's threshold files break on them).

func environmentInt(_ name: String, _ fallback: Int) -> Int {
    guard let text = getenv(name), let value = Int(String(cString: text)) else { return fallback }
    return value
}

let itemCount = environmentInt("DERIVED_N", 1_000_000)
let consumerCount = 100

struct Todo: Identifiable, Equatable, Sendable {
    let id: Int
    var done = false
}

struct TodoApp: Sendable {
    var todos: IdentifiedList<Todo>
    var filter = 0
}

typealias State = Versioned<TodoApp>

enum TodoAction: Sendable { case toggle(Int) }

enum Remaining: CountingSummary {
    static func counts(_ todo: Todo) -> Bool { !todo.done }
}

/// The README's todo: an id, a title and whether it is done.
struct ReadmeTodo: Identifiable, Equatable, Sendable {
    let id: Int
    var title: String
    var done = false
}

enum ReadmeRemaining: CountingSummary {
    static func counts(_ todo: ReadmeTodo) -> Bool { !todo.done }
}

/// Resident bytes of the process (see `CHeapBytes`).
func residentBytes() -> Int { Int(cheapbytes_resident()) }

final class CallCount: @unchecked Sendable { var value = 0 }

enum CountKind: String { case fold, foldDirect, recount, none }

final class DerivedFixture: @unchecked Sendable {
    let store: Store<State, TodoAction>
    let consumer = StateConsumer<State>()
    let subscription: StoreSubscription
    let calls = CallCount()
    var step = 0

    static func row(_ k: Int) -> Int { (k % consumerCount) * (itemCount / consumerCount) }

    init(_ kind: CountKind) {
        let todos = (0..<itemCount).map { Todo(id: $0) }
        let list = kind == .fold || kind == .foldDirect ? IdentifiedList(todos, folds: [Remaining.self]) : IdentifiedList(todos)
        store = Store(state: State(TodoApp(todos: list))) { state, action in
            switch action { case .toggle(let id): state.todos[id: id]?.done.toggle() }
        }
        let calls = self.calls
        for k in 0..<consumerCount {
            let id = Self.row(k)
            consumer.add({ $0.todos[id: id]?.done }) { (_: Bool?, _: Bool?) in calls.value += 1 }
        }
        switch kind {
        case .fold:
            let remaining = Derived { (state: State) in state.todos.fold(Remaining.self) }
            consumer.add({ remaining($0) }) { (_: Int?, _: Int) in calls.value += 1 }
        case .foldDirect:
            consumer.add({ $0.todos.fold(Remaining.self) }) { (_: Int?, _: Int) in calls.value += 1 }
        case .recount:
            consumer.add({ state -> Int in
                var n = 0
                for todo in state.todos where !todo.done { n += 1 }
                return n
            }) { (_: Int?, _: Int) in calls.value += 1 }
        case .none:
            break
        }
        subscription = consumer.connect(to: store)
    }

    func dispatch() {
        step &+= 1
        store.dispatch(.toggle(Self.row(step)))
    }
}

final class Fixtures: @unchecked Sendable {
    static let shared = Fixtures()
    private var cache: [String: DerivedFixture] = [:]
    func get(_ kind: CountKind) -> DerivedFixture {
        if let fixture = cache[kind.rawValue] { return fixture }
        // NB: one list of 1,000,000 rows at a time (the previous fixture
        // is released first).
        cache.removeAll()
        let fixture = DerivedFixture(kind)
        cache[kind.rawValue] = fixture
        return fixture
    }
}

/// Thousandths of a byte of resident memory per element that attaching
/// the count `Fold` adds to a list of `itemCount` elements made by `make`.
func foldMilliBytesPerElement<Element: Identifiable & Equatable & Sendable, Fold: CountingSummary>(
    _ make: (Int) -> Element, _ fold: Fold.Type
) -> Int where Element.ID: Sendable, Fold.Element == Element {
    var list = IdentifiedList((0..<itemCount).map(make))
    let before = residentBytes()
    list.attach(Fold.self)
    let after = residentBytes()
    precondition(list.fold(Fold.self) == itemCount)
    if getenv("DERIVED_VERBOSE") != nil {
        print("DerivedBenchmarks: resident \(before) -> \(after) bytes attaching a count to \(itemCount) \(Element.self) rows")
    }
    return withExtendedLifetime(list) { (after - before) * 1_000 / max(1, itemCount) }
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

    let bytes = BenchmarkMetric.custom("foldMilliBytesPerElement", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("Derived.foldBytesPerElement",
              configuration: .init(metrics: [bytes], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
        benchmark.measurement(bytes, foldMilliBytesPerElement({ Todo(id: $0) }, Remaining.self))
    }
    Benchmark("Derived.foldBytesPerElement.readmeTodo",
              configuration: .init(metrics: [bytes], warmupIterations: 0, maxIterations: 1, thresholds: nil)) { benchmark in
        // Titles of 24 bytes or more, on the heap as an app's would be.
        benchmark.measurement(bytes, foldMilliBytesPerElement({ ReadmeTodo(id: $0, title: "todo \($0) ..................") }, ReadmeRemaining.self))
    }

    for kind in [CountKind.fold, .foldDirect, .recount, .none] {
        Benchmark("Derived.remaining.\(kind.rawValue).consumers100",
                  configuration: .init(maxIterations: kind == .recount ? 200 : 10_000)) { benchmark in
            let fixture = Fixtures.shared.get(kind)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.dispatch() }
            benchmark.stopMeasurement()
        }
    }
}

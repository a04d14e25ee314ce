import Benchmark
import SuiteSupport
@_spi(Testing) import FastStore
#if canImport(Glibc)
import Glibc
#endif

// The workload: a state of N small Equatable items, one item
// toggled per dispatch, C consumers each watching one item. Every dispatch
// toggles a watched item, so every dispatch delivers exactly one callback.
//
// - `Consumer.FastStore.*`: `Versioned<ItemsState>` whose items are a
//   `VersionedList` (per-element stamps), a `Store`, and a `StateConsumer`
//   connected to it. Reported per dispatch (reduce + notify + consume).
// - `Consumer.NaiveFullCopy.*`: the reference line, measured in the same
//   run: plain `[Item]` state in the same `Store`, and a consumer that keeps
//   the previous state and runs every selector on the old and the new state
//   (ReSwiftConsumer's strategy). Reported per dispatch.
// - `Consumer.FastStoreConsumeOnly.*`: the consumer alone, fed by a drain
//   simulated the way the store drains (journal installed, changes
//   installed), on a state nobody else holds: what the consumer itself costs.
// - `Consumer.RetainedBytes.*`: bytes the consumer keeps (malloc'd and not
//   freed, glibc `mallinfo2`) after adding C consumers, connecting and
//   consuming 100 dispatches, as a custom metric `consumerRetainedBytes`;
//   it must not grow with N.
//
// Names have no spaces (package-benchmark's threshold files break on them).

struct Item: Equatable, Sendable {
    var id: Int
    var done: Bool
}

struct ItemsState: Equatable, Sendable {
    var items: VersionedList<Item>
    var filter: Int
}

struct PlainState: Equatable, Sendable {
    var items: [Item]
    var filter: Int
}

enum Toggle: Sendable { case toggle(Int) }

@inline(never)
func versionedReducer(_ state: inout Versioned<ItemsState>, _ action: Toggle) {
    switch action { case .toggle(let i): state.items[i].done.toggle() }
}

@inline(never)
func plainReducer(_ state: inout PlainState, _ action: Toggle) {
    switch action { case .toggle(let i): state.items[i].done.toggle() }
}

/// The watched item of consumer `k` of `consumers` over `n` items.
@inline(__always)
func watched(_ k: Int, consumers: Int, n: Int) -> Int { k * (n / consumers) }

func makeItems(_ n: Int) -> [Item] { (0..<n).map { Item(id: $0, done: false) } }

/// FastStore: versioned state, store, connected consumer.
final class FastFixture: @unchecked Sendable {
    let n: Int, consumers: Int
    let store: Store<Versioned<ItemsState>, Toggle>
    let consumer = StateConsumer<Versioned<ItemsState>>()
    var subscription: StoreSubscription?
    var delivered = 0
    var next = 0

    init(n: Int, consumers: Int) {
        self.n = n
        self.consumers = consumers
        store = Store(state: Versioned(ItemsState(items: VersionedList(makeItems(n)), filter: 0)), reducer: versionedReducer)
        for k in 0..<consumers {
            let index = watched(k, consumers: consumers, n: n)
            consumer.add({ $0.items[index].done }) { [unowned self] (_: Bool?, _: Bool) in delivered &+= 1 }
        }
        subscription = consumer.connect(to: store)
    }

    /// One dispatch toggling the next watched item.
    @inline(__always)
    func dispatch() {
        store.dispatch(.toggle(watched(next, consumers: consumers, n: n)))
        next = next == consumers - 1 ? 0 : next + 1
    }
}

/// The reference: plain state in the same store, a consumer keeping the
/// whole previous state and comparing every selection.
final class NaiveFullCopyConsumer<State> {
    private var previous: State?
    private var selectors: [(State) -> Bool] = []
    private var callbacks: [(Bool?, Bool) -> Void] = []

    func add(_ selector: @escaping (State) -> Bool, _ callback: @escaping (Bool?, Bool) -> Void) {
        selectors.append(selector)
        callbacks.append(callback)
    }

    func consume(newState: State) {
        for (selector, callback) in zip(selectors, callbacks) {
            let old = previous.map(selector)
            let new = selector(newState)
            if old != new { callback(old, new) }
        }
        previous = newState
    }
}

final class NaiveFixture: @unchecked Sendable {
    let n: Int, consumers: Int
    let store: Store<PlainState, Toggle>
    let consumer = NaiveFullCopyConsumer<PlainState>()
    var subscription: StoreSubscription?
    var delivered = 0
    var next = 0

    init(n: Int, consumers: Int) {
        self.n = n
        self.consumers = consumers
        store = Store(state: PlainState(items: makeItems(n), filter: 0), reducer: plainReducer)
        for k in 0..<consumers {
            let index = watched(k, consumers: consumers, n: n)
            consumer.add({ $0.items[index].done }) { [unowned self] _, _ in delivered &+= 1 }
        }
        consumer.consume(newState: store.state)
        subscription = store.subscribe { [unowned self] in consumer.consume(newState: $0) }
    }

    @inline(__always)
    func dispatch() {
        store.dispatch(.toggle(watched(next, consumers: consumers, n: n)))
        next = next == consumers - 1 ? 0 : next + 1
    }
}

/// The consumer alone, fed by simulated drains of a state only it mutates.
final class ConsumeOnlyFixture: @unchecked Sendable {
    let n: Int, consumers: Int
    var state: Versioned<ItemsState>
    let consumer = StateConsumer<Versioned<ItemsState>>()
    let drains = _SimulatedDrains<Versioned<ItemsState>>()
    var delivered = 0
    var next = 0

    init(n: Int, consumers: Int) {
        self.n = n
        self.consumers = consumers
        state = Versioned(ItemsState(items: VersionedList(makeItems(n)), filter: 0))
        for k in 0..<consumers {
            let index = watched(k, consumers: consumers, n: n)
            consumer.add({ $0.items[index].done }) { [unowned self] (_: Bool?, _: Bool) in delivered &+= 1 }
        }
        consumer.consume(newState: state)
    }

    @inline(__always)
    func dispatch() {
        let index = watched(next, consumers: consumers, n: n)
        drains.drain(&state, { $0.items[index].done.toggle() }, notify: { consumer.consume(newState: $0) })
        next = next == consumers - 1 ? 0 : next + 1
    }
}

/// Fixtures are built once per process and reused by every sample: building
/// a 1,000,000-item state is not what is measured.
final class Fixtures: @unchecked Sendable {
    static let shared = Fixtures()
    private var cache: [String: AnyObject] = [:]
    func get<F: AnyObject>(_ key: String, _ make: () -> F) -> F {
        if let fixture = cache[key] as? F { return fixture }
        let fixture = make()
        cache[key] = fixture
        return fixture
    }
    func drop(_ key: String) { cache[key] = nil }
}

/// Bytes malloc'd and not yet freed by this process, from glibc's
/// `mallinfo2()` (`uordblks + hblkhd`), or -1 where it cannot be read.
///
/// NB: the Glibc module does not export `<malloc.h>`, so `mallinfo2` is
/// looked up with `dlsym` and called through its x86-64 System V ABI: a
/// struct of ten `size_t` is returned through a hidden pointer passed as the
/// first argument (and returned in `rax`), which is what a C function of
/// one pointer argument is called with. Other architectures report -1.
func mallocInUse() -> Int {
    #if canImport(Glibc) && arch(x86_64)
    typealias MallInfo2 = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer
    guard let symbol = dlsym(nil, "mallinfo2") else { return -1 }
    var fields = [Int](repeating: 0, count: 10)  // arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost
    fields.withUnsafeMutableBytes { buffer in
        _ = unsafeBitCast(symbol, to: MallInfo2.self)(buffer.baseAddress!)
    }
    return fields[7] + fields[4]
    #else
    return -1
    #endif
}

let sizes: [(label: String, n: Int)] = [
    ("N1000", 1_000), ("N10000", 10_000), ("N100000", 100_000), ("N1000000", 1_000_000),
]

let benchmarks: @Sendable () -> Void = {
    precondition(!_DrainSimulator.internalChecksEnabled,
                 "FastStore was built with FASTSTORE_INTERNAL_CHECKS (a debug build): benchmark a release build")

    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: suiteMaxDuration(.seconds(1)),
        maxIterations: 100_000,
        thresholds: allocationCountGate
    )

    for (label, n) in sizes {
        Benchmark("Consumer.FastStore.\(label).consumers100") { benchmark in
            let fixture = Fixtures.shared.get("fast.\(n).100") { FastFixture(n: n, consumers: 100) }
            let before = fixture.delivered
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.dispatch() }
            benchmark.stopMeasurement()
            precondition(fixture.delivered - before == benchmark.scaledIterations.count, "one callback per dispatch")
        }
    }

    for (label, n) in sizes {
        Benchmark("Consumer.NaiveFullCopy.\(label).consumers100",
                  configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                       warmupIterations: 2, scalingFactor: n >= 100_000 ? .one : .kilo,
                                       maxDuration: suiteMaxDuration(.seconds(1)), maxIterations: 10_000)) { benchmark in
            let fixture = Fixtures.shared.get("naive.\(n).100") { NaiveFixture(n: n, consumers: 100) }
            let before = fixture.delivered
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.dispatch() }
            benchmark.stopMeasurement()
            precondition(fixture.delivered - before == benchmark.scaledIterations.count, "one callback per dispatch")
        }
    }

    for (label, n) in [("N100000", 100_000), ("N1000000", 1_000_000)] {
        Benchmark("Consumer.FastStore.\(label).consumers10000") { benchmark in
            let fixture = Fixtures.shared.get("fast.\(n).10000") { FastFixture(n: n, consumers: 10_000) }
            let before = fixture.delivered
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.dispatch() }
            benchmark.stopMeasurement()
            precondition(fixture.delivered - before == benchmark.scaledIterations.count, "one callback per dispatch")
        }
    }

    for (label, n) in [("N1000", 1_000), ("N1000000", 1_000_000)] {
        Benchmark("Consumer.FastStoreConsumeOnly.\(label).consumers100") { benchmark in
            let fixture = Fixtures.shared.get("consumeOnly.\(n).100") { ConsumeOnlyFixture(n: n, consumers: 100) }
            let before = fixture.delivered
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { fixture.dispatch() }
            benchmark.stopMeasurement()
            precondition(fixture.delivered - before == benchmark.scaledIterations.count, "one callback per dispatch")
        }
    }

    // Bytes retained by a consumer of C consumers after 100 dispatches, on
    // states of 1,000 and 1,000,000 items. The state and store are built
    // before measuring; the consumer is built, connected, fed and measured.
    for (label, n, consumers) in [("N1000", 1_000, 100), ("N1000000", 1_000_000, 100),
                                  ("N100000", 100_000, 10_000), ("N1000000", 1_000_000, 10_000)] {
        do {
            Benchmark("Consumer.RetainedBytes.\(label).consumers\(consumers)",
                      configuration: .init(metrics: [.custom("consumerRetainedBytes", useScalingFactor: false)],
                                           warmupIterations: 0, scalingFactor: .one,
                                           maxDuration: suiteMaxDuration(.seconds(1)), maxIterations: 3, thresholds: nil)) { benchmark in
                let store = Store(state: Versioned(ItemsState(items: VersionedList(makeItems(n)), filter: 0)),
                                  reducer: versionedReducer)
                // NB: toggle every item the consumers will see toggled, twice,
                // before measuring: a list leaf's first write allocates its
                // per-element stamps, which is the state's memory, not the
                // consumer's.
                for k in 0..<consumers {
                    store.dispatch(.toggle(watched(k, consumers: consumers, n: n)))
                    store.dispatch(.toggle(watched(k, consumers: consumers, n: n)))
                }
                let before = mallocInUse()
                var consumer: StateConsumer<Versioned<ItemsState>>? = StateConsumer()
                var delivered = 0
                for k in 0..<consumers {
                    let index = watched(k, consumers: consumers, n: n)
                    consumer!.add({ $0.items[index].done }) { (_: Bool?, _: Bool) in delivered &+= 1 }
                }
                var subscription: StoreSubscription? = consumer!.connect(to: store)
                for i in 0..<100 { store.dispatch(.toggle(watched(i % consumers, consumers: consumers, n: n))) }
                let retained = mallocInUse() - before
                benchmark.measurement(.custom("consumerRetainedBytes", useScalingFactor: false), retained)
                precondition(delivered == consumers + 100)
                subscription = nil
                consumer = nil
                _ = (subscription, consumer)
            }
        }
    }
}

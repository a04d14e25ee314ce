import Benchmark
import SuiteSupport
@_spi(Testing) import FastStore
import FastStoreReSwift

// What the ReSwift-compatible facade costs, and what moving to versioned
// state gains: the workload of Fixtures.swift (N items, 100 consumers or
// subscribers of one item each, one watched item toggled per dispatch, one
// callback per dispatch) through the facade and through FastStore's API.
// Reported per dispatch: reduce, notify, consume, one callback.
//
// - `Facade.Plain.ConsumerFromNewState`: ReSwift + ReSwiftConsumer code with
//   its import changed.
// - `Facade.Plain.Subscriptions`: ReSwift code with 100 selecting
//   subscribers instead of consumers.
// - `Facade.Versioned.Subscriptions`: the 100 selecting subscribers on
//   versioned state: their chains are tracked by the facade's consumer.
// - `Facade.Versioned.ConsumerFromNewState`: the facade code, state wrapped
//   in `Versioned` (its array a `VersionedList`).
// - `Native.Plain.Connect`: FastStore's `Store` + `StateConsumer.connect`.
// - `Native.Versioned.Connect`: the same on versioned state.
//
// Names have no spaces (package-benchmark's threshold files break on them).

/// Fixtures are built once per process and reused by every sample: building
/// the state is not what is measured.
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

let sizes: [(label: String, n: Int)] = [("N1000", 1_000), ("N100000", 100_000)]
let consumers = 100

/// Runs `dispatch` once per scaled iteration, measured, and checks that each
/// dispatch delivered one callback.
@inline(__always)
func measureDispatches(_ benchmark: Benchmark, delivered: () -> Int, _ dispatch: () -> Void) {
    let before = delivered()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { dispatch() }
    benchmark.stopMeasurement()
    precondition(delivered() - before == benchmark.scaledIterations.count, "one callback per dispatch")
}

/// One dispatch per iteration where a dispatch takes tens of microseconds
/// or more (`slow`), a thousand where it takes a few.
func configuration(slow: Bool) -> Benchmark.Configuration {
    .init(metrics: [.wallClock, .mallocCountTotal, .throughput],
          warmupIterations: slow ? 100 : 10,
          scalingFactor: slow ? .one : .kilo,
          maxDuration: suiteMaxDuration(.seconds(1)),
          maxIterations: 100_000,
          thresholds: allocationCountGate)
}

let benchmarks: @Sendable () -> Void = {
    precondition(!_DrainSimulator.internalChecksEnabled,
                 "FastStore was built with FASTSTORE_INTERNAL_CHECKS (a debug build): benchmark a release build")

    for (label, n) in sizes {
        Benchmark("Facade.Plain.ConsumerFromNewState.\(label)",
                  configuration: configuration(slow: n >= 100_000)) { benchmark in
            let fixture = Fixtures.shared.get("facade.plain.\(n)") { FacadePlainFixture(n: n, consumers: consumers) }
            measureDispatches(benchmark, delivered: { fixture.delivered }, fixture.dispatch)
        }

        Benchmark("Facade.Plain.Subscriptions.\(label)",
                  configuration: configuration(slow: true)) { benchmark in
            let fixture = Fixtures.shared.get("facade.subscriptions.\(n)") {
                FacadeSubscriptionsFixture<PlainState>(n: n, consumers: consumers) { index in { $0.items[index].done } }
            }
            measureDispatches(benchmark, delivered: { fixture.delivered }, fixture.dispatch)
        }

        Benchmark("Facade.Versioned.Subscriptions.\(label)",
                  configuration: configuration(slow: false)) { benchmark in
            let fixture = Fixtures.shared.get("facade.versioned.subscriptions.\(n)") {
                FacadeSubscriptionsFixture<VersionedState>(n: n, consumers: consumers) { index in { $0.items[index].done } }
            }
            measureDispatches(benchmark, delivered: { fixture.delivered }, fixture.dispatch)
        }

        Benchmark("Facade.Versioned.ConsumerFromNewState.\(label)",
                  configuration: configuration(slow: false)) { benchmark in
            let fixture = Fixtures.shared.get("facade.versioned.\(n)") { FacadeVersionedFixture(n: n, consumers: consumers) }
            measureDispatches(benchmark, delivered: { fixture.delivered }, fixture.dispatch)
        }

        Benchmark("Native.Plain.Connect.\(label)",
                  configuration: configuration(slow: n >= 100_000)) { benchmark in
            let fixture = Fixtures.shared.get("native.plain.\(n)") { NativePlainFixture(n: n, consumers: consumers) }
            measureDispatches(benchmark, delivered: { fixture.delivered }, fixture.dispatch)
        }

        Benchmark("Native.Versioned.Connect.\(label)",
                  configuration: configuration(slow: false)) { benchmark in
            let fixture = Fixtures.shared.get("native.versioned.\(n)") { NativeVersionedFixture(n: n, consumers: consumers) }
            measureDispatches(benchmark, delivered: { fixture.delivered }, fixture.dispatch)
        }
    }
}

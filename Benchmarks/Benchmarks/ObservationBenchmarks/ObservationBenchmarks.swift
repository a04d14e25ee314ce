import Benchmark
import SuiteSupport
@_spi(Testing) import FastStore
import ObservationFixtures

// The fixtures and what each measures: ObservationFixtures.swift.

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
        maxDuration: suiteMaxDuration(.seconds(1)),
        maxIterations: 100_000,
        thresholds: allocationCountGate
    )

    // NB: a wider allocation tolerance than the suites' 5 %: the
    // earlier-read rule's re-notifications are dispatched asynchronously,
    // so how many a sample's iterations see depends on the threads' timing
    // (34,719 to 44,000 per 1,000 actions in four runs: the gate holds it within 35 % of 39,000).
    Benchmark(
        "Observation.FastStore.perNode.rows1000",
        configuration: .init(thresholds: [.mallocCountTotal: BenchmarkThresholds(relative: [.p90: 35.0])])
    ) { benchmark in
        let fixture = Fixtures.shared.get("perNode") { makePerNode() }
        // NB: the earlier-read rule tells the first row re-tracked after an
        // action once more (docs/observation.md, "Races"), asynchronously:
        // up to one more invalidated row per action.
        measureActions(benchmark, invalidatedPerAction: 1, extraPerAction: 1) { fixture.act() }
    }

    Benchmark("Observation.Classes.rows1000") { benchmark in
        let fixture = Fixtures.shared.get("classes") { ClassesFixture() }
        measureActions(benchmark, invalidatedPerAction: 1) { fixture.act() }
    }

    Benchmark("Observation.ClassesBehindAStore.rows1000") { benchmark in
        let fixture = Fixtures.shared.get("classesStore") { ClassesStoreFixture() }
        measureActions(benchmark, invalidatedPerAction: 1) { fixture.act() }
    }

    Benchmark("Observation.FastStore.dispatchOnly.rows1000") { benchmark in
        let fixture = Fixtures.shared.get("dispatchOnly") { makePerNode(tracked: false) }
        measureActions(benchmark, invalidatedPerAction: 0) { fixture.act() }
    }

    Benchmark("Observation.FastStore.wholeState.rows1000",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                   warmupIterations: 2, scalingFactor: .one,
                                   maxDuration: suiteMaxDuration(.seconds(1)), maxIterations: 10_000)) { benchmark in
        let fixture = Fixtures.shared.get("wholeState", makeWholeState)
        measureActions(benchmark, invalidatedPerAction: rowCount) { fixture.act() }
    }
}

/// Runs `act` (one action) once per scaled iteration, measured, and checks
/// that each action invalidated `perAction` rows.
@inline(__always)
func measureActions(_ benchmark: Benchmark, invalidatedPerAction perAction: Int, extraPerAction extra: Int = 0, _ act: () -> Int) {
    var invalidated = 0
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations { invalidated += act() }
    benchmark.stopMeasurement()
    let actions = benchmark.scaledIterations.count
    // NB: extra invalidations arrive asynchronously, a millisecond or more
    // later, so they may land in a later measurement: only a lower bound.
    if extra == 0 {
        precondition(invalidated == perAction * actions, "\(perAction) rows invalidated per action")
    } else {
        precondition(invalidated >= perAction * actions, "at least \(perAction) rows invalidated per action")
    }
}

import Benchmark

/// The tolerance of the suites' allocation-count gate
/// (`scripts/bench-suites.sh`, run by CI): a benchmark fails when the p90 of
/// its allocations per iteration (`mallocCountTotal`) moves more than 5 %
/// from the checked-in `Benchmarks/Thresholds/suites/<swift>/` file, either
/// way (an improvement means the file is stale). Allocation counts do not
/// move with machine load, so the gate is the suites' only one: their times
/// are figures for `docs/benchmarks/MEASUREMENTS.md`, not checks.
///
/// 5 % lets a count of 20 or more move by one allocation; below 20, one more
/// allocation per iteration fails.
public var allocationCountGate: [BenchmarkMetric: BenchmarkThresholds] {
    // NB: computed: package-benchmark's types are not `Sendable`, so a
    // global constant of them is refused in Swift 6 mode.
    [.mallocCountTotal: BenchmarkThresholds(relative: [.p90: 5.0])]
}

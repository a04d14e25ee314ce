import Benchmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

/// The longest a suite's benchmark runs: `duration`, or at most 200 ms in
/// an allocation-count run (`FSBENCH_ALLOCATION_GATE=1`, which
/// `scripts/bench-suites.sh` sets when it checks or records the
/// thresholds). An iteration's allocation count does not depend on how
/// many iterations ran, so the gate needs no second of samples per
/// benchmark; the suites' times, run without it, keep their full duration.
public func suiteMaxDuration(_ duration: Duration) -> Duration {
    guard let flag = getenv("FSBENCH_ALLOCATION_GATE"), String(cString: flag) == "1" else { return duration }
    return min(duration, .milliseconds(200))
}

import Benchmark
import SuiteSupport
import Foundation
import BenchCore
import StrategyKit

// The strategy comparison as package-benchmark benchmarks, named
// `<profile>.<strategy>` (no spaces), one dispatch per iteration, at each
// profile's quick size: package-benchmark's own malloc counts and wall clock
// for the same workloads fsbench measures with jemalloc. Run from Benchmarks/:
//   swift package --allow-writing-to-package-directory benchmark --target StrategyBenchmarks
// Dispatches are single-threaded here, whatever the profile's pattern.

/// Holds one strategy between package-benchmark's setup and its samples.
final class _Subject: @unchecked Sendable {
    var strategy: (any BenchStrategy)?
    var next = 0
}

func _profilesDirectory() -> URL {
    // Benchmarks/Benchmarks/StrategyBenchmarks/StrategyBenchmarks.swift -> Profiles/
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Profiles")
}

let benchmarks: @Sendable () -> Void = {
    let directory = _profilesDirectory()
    let files = ((try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [])
        .filter { $0.pathExtension == "json" }
        .sorted { $0.lastPathComponent < $1.lastPathComponent }
    precondition(!files.isEmpty, "StrategyBenchmarks: no profiles in \(directory.path)")
    for file in files {
        let profile: ProfileSpec
        do { profile = try ProfileLoader.load(file) } catch { fatalError("StrategyBenchmarks: \(error)") }
        let workload = Workload(profile: profile, entities: profile.quickEntities, maxDispatches: 2_000, seconds: 1, warmup: 0)
        // NB: not the strategies whose store drains on the main thread
        // (faststore-main): package-benchmark runs a benchmark's closures
        // on a task, off the main actor. fsbench times them, and
        // `scripts/instructions.sh` counts them.
        for strategy in Strategies.all where !strategy.drainsOnMainThread {
            let subject = _Subject()
            Benchmark(
                "\(profile.name).\(strategy.name)",
                configuration: .init(
                    metrics: [.wallClock, .mallocCountTotal, .throughput],
                    warmupIterations: 10,
                    maxDuration: suiteMaxDuration(.seconds(1)),
                    maxIterations: 1_000,
                    thresholds: allocationCountGate
                ),
                closure: { benchmark in
                    guard let strategy = subject.strategy else { return }
                    for _ in benchmark.scaledIterations {
                        strategy.dispatch(workload.actions[subject.next % workload.actions.count])
                        strategy.waitUntilIdle()
                        subject.next += 1
                    }
                },
                setup: {
                    let s = strategy.make(workload)
                    s.attachConsumers()
                    subject.strategy = s
                    subject.next = 0
                },
                teardown: {
                    subject.strategy = nil
                }
            )
        }
    }
}

import Benchmark
import FastStore

let benchmarks: @Sendable () -> Void = {
    Benchmark("ConsumerBenchmarks.Placeholder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(VersionStamp.self) }
    }
}

// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite is its own package (as swift-nio and TCA do), so that
// `swift test` at the root does not build package-benchmark or need jemalloc.
let package = Package(
    name: "FastStoreBenchmarks",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [
        .package(name: "FastStore", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        // The strategy comparison: workload profiles, the four
        // consumer strategies and the measuring driver. Pure Swift, no
        // jemalloc, so package-benchmark targets may use it too.
        .target(
            name: "StrategyKit",
            dependencies: [
                .product(name: "FastStore", package: "FastStore"),
            ],
            path: "Benchmarks/StrategyKit"
        ),
        // `fsbench`, the main job's runner: links jemalloc (which replaces
        // malloc for the whole process) and reads its counters with mallctl.
        // It does not link package-benchmark, whose MallocInterposer would
        // also interpose malloc.
        .executableTarget(
            name: "fsbench",
            dependencies: [
                "StrategyKit",
                .product(name: "CJemalloc", package: "FastStore"),
            ],
            path: "Benchmarks/Runner"
        ),
        // `fsinstructions`: a fixed number of dispatches of one profile, for
        // instruction counts under callgrind (`scripts/instructions.sh`).
        .executableTarget(
            name: "fsinstructions",
            dependencies: ["StrategyKit"],
            path: "Benchmarks/Instructions"
        ),
        // Validation, workload and agreement tests of StrategyKit
        // (`swift test --filter StrategyKitTests` from Benchmarks/).
        .testTarget(
            name: "StrategyKitTests",
            dependencies: ["StrategyKit"],
            path: "Tests/StrategyKitTests"
        ),
        // The same comparison under package-benchmark (its malloc counts and
        // wall clock; no jemalloc), one benchmark per profile and strategy.
        .executableTarget(
            name: "StrategyBenchmarks",
            dependencies: [
                "StrategyKit",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StrategyBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "FastStore", package: "FastStore"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ConsumerBenchmarks",
            dependencies: [
                .product(name: "FastStore", package: "FastStore"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ConsumerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Scoped stores: 10 vs 1,000 live scopes over a 100,000-row list,
        // beside TCA-style re-derivation of every live scope.
        .executableTarget(
            name: "ScopeBenchmarks",
            dependencies: [
                .product(name: "FastStore", package: "FastStore"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ScopeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ObservationBenchmarks",
            dependencies: [
                .product(name: "FastStore", package: "FastStore"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ObservationBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "CollectionBenchmarks",
            dependencies: [
                .product(name: "FastStore", package: "FastStore"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ],
            path: "Benchmarks/CollectionBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The same subscriber workload through the ReSwift-compatible facade
        // and through FastStore's API, on plain and versioned state.
        .executableTarget(
            name: "FacadeBenchmarks",
            dependencies: [
                .product(name: "FastStore", package: "FastStore"),
                .product(name: "FastStoreReSwift", package: "FastStore"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/FacadeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

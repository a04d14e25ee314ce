// swift-tools-version: 6.2
import PackageDescription

// The benchmark suite is its own package (as swift-nio and TCA do), so that
// `swift test` at the root does not build package-benchmark or need jemalloc.
//
// FSBENCH_ONLY=1 leaves out the package-benchmark suites and their
// dependencies: scripts/bench.sh, bench-ci.sh and instructions.sh set it, so
// that building `fsbench`, `fsbench-lite` or `fsinstructions` does not build
// package-benchmark's plugin tools first (which `--product` alone does not
// avoid). Without it the package is whole: `swift test`,
// `swift package benchmark`.
let runnerOnly = Context.environment["FSBENCH_ONLY"] == "1"

// The strategy comparison: its runner, the lite runner that answers `--help`,
// `--list` and `--validate` from a small debug build, the instruction-count
// driver and their tests.
let runnerTargets: [Target] = [
    // jemalloc, for fsbench's memory figures only. `Sources/CJemalloc` (the
    // root package's folder, which declares no target for it, so that the
    // FastStore library can never link it) reached through the symlink
    // `Benchmarks/CJemalloc`: SwiftPM refuses a target path outside the
    // package root.
    .systemLibrary(
        name: "CJemalloc",
        path: "Benchmarks/CJemalloc",
        pkgConfig: "jemalloc",
        providers: [.apt(["libjemalloc-dev"])]
    ),
    // Profiles (their format, validation and budget against the machine),
    // the strategies' names and the results' shape: Foundation only, no
    // FastStore, so that the lite runner builds in seconds.
    .target(
        name: "BenchCore",
        path: "Benchmarks/BenchCore"
    ),
    // fsbench's command line (swift-argument-parser), its checks of paths
    // and profiles before measuring, and its reports: the terminal table
    // (TextTable), RESULTS.md, the SVG charts, the CI check.
    .target(
        name: "BenchCLI",
        dependencies: [
            "BenchCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "TextTable", package: "TextTable"),
        ],
        path: "Benchmarks/BenchCLI"
    ),
    // The workloads, the consumer strategies and the measuring driver. Pure
    // Swift, no jemalloc, so package-benchmark targets may use it too.
    .target(
        name: "StrategyKit",
        dependencies: [
            "BenchCore",
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
        dependencies: ["BenchCLI", "StrategyKit", "JemallocMeter"],
        path: "Benchmarks/fsbench"
    ),
    // jemalloc's counters read with mallctl: fsbench's and fscollections'
    // memory figures.
    .target(
        name: "JemallocMeter",
        dependencies: ["StrategyKit", "CJemalloc"],
        path: "Benchmarks/JemallocMeter"
    ),
    // `fscollections`: big state side by side (an array, `VersionedList`,
    // `IdentifiedList` of the same 1,000,000 todos): bytes held, build,
    // iteration from another module, a write at 1M against one at 100k.
    .executableTarget(
        name: "fscollections",
        dependencies: ["StrategyKit", "JemallocMeter"],
        path: "Benchmarks/fscollections"
    ),
    // `fsbench-lite`: fsbench's command line without the strategies, for
    // `--list` and `--validate` from a debug build of a few seconds.
    .executableTarget(
        name: "fsbench-lite",
        dependencies: ["BenchCLI"],
        path: "Benchmarks/fsbench-lite"
    ),
    // `fsinstructions`: a fixed number of dispatches of one profile, for
    // instruction counts under callgrind (`scripts/instructions.sh`).
    .executableTarget(
        name: "fsinstructions",
        dependencies: ["StrategyKit"],
        path: "Benchmarks/fsinstructions"
    ),
    // The Observation fixtures (1,000 tracked rows, one renamed per action),
    // shared by the `ObservationBenchmarks` suite and `fsobservation`.
    .target(
        name: "ObservationFixtures",
        dependencies: [.product(name: "FastStore", package: "FastStore")],
        path: "Benchmarks/ObservationFixtures"
    ),
    // `fsobservation`: a fixed number of actions of one Observation
    // fixture, for instruction counts under callgrind
    // (`scripts/instructions.sh`, entries `observation:FIXTURE`).
    .executableTarget(
        name: "fsobservation",
        dependencies: ["ObservationFixtures"],
        path: "Benchmarks/fsobservation"
    ),
    // Validation, workload and agreement tests of StrategyKit
    // (`swift test --filter StrategyKitTests` from Benchmarks/).
    .testTarget(
        name: "StrategyKitTests",
        dependencies: ["StrategyKit", "BenchCore"],
        path: "Tests/StrategyKitTests"
    ),
    // fsbench's command line: option errors, path checks, the table's
    // width, the chart, the help text kept in docs/benchmarks.
    .testTarget(
        name: "BenchCLITests",
        dependencies: [
            "BenchCLI",
            "BenchCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        path: "Tests/BenchCLITests"
    ),
]

// The package-benchmark suites: the store, the consumers and the
// collections in isolation (`swift package benchmark`).
let suiteTargets: [Target] = [
    // The allocation-count tolerance every suite gates on (scripts/bench-suites.sh).
    .target(
        name: "SuiteSupport",
        dependencies: [.product(name: "Benchmark", package: "benchmark")],
        path: "Benchmarks/SuiteSupport"
    ),
    // The same comparison under package-benchmark (its malloc counts and
    // wall clock; no jemalloc), one benchmark per profile and strategy.
    .executableTarget(
        name: "StrategyBenchmarks",
        dependencies: [
            "StrategyKit",
            "BenchCore",
            .product(name: "Benchmark", package: "benchmark"),
            "SuiteSupport",
        ],
        path: "Benchmarks/StrategyBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
        name: "StoreBenchmarks",
        dependencies: [
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            "SuiteSupport",
        ],
        path: "Benchmarks/StoreBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
        name: "ConsumerBenchmarks",
        dependencies: [
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            "SuiteSupport",
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
            "SuiteSupport",
        ],
        path: "Benchmarks/ScopeBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // What SwiftUI does with 1,000 rows on screen: per-node Observation of
    // versioned state, whole-state Observation, observable classes.
    .executableTarget(
        name: "ObservationBenchmarks",
        dependencies: [
            "ObservationFixtures",
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            "SuiteSupport",
        ],
        path: "Benchmarks/ObservationBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // Patches: diff + JSON encode, and decode + apply, of one changed row
    // in a 1,000,000-row todo list.
    .executableTarget(
        name: "PatchBenchmarks",
        dependencies: [
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            "SuiteSupport",
        ],
        path: "Benchmarks/PatchBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // Undo, redo and jumps of a StoreHistory over 1,000,000 versioned rows
    // with 100 row consumers, beside a consumed dispatch; retained bytes
    // per recorded action.
    .target(
        name: "CHeapBytes",
        path: "Benchmarks/CHeapBytes"
    ),
    .executableTarget(
        name: "HistoryBenchmarks",
        dependencies: [
            "CHeapBytes",
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            "SuiteSupport",
        ],
        path: "Benchmarks/HistoryBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // A 'remaining' count over 1,000,000 todo items beside 100 row
    // consumers: a memoized Derived over a fold, a whole-list recount, and
    // the row consumers alone; the fold's bytes per element.
    .executableTarget(
        name: "DerivedBenchmarks",
        dependencies: [
            "CHeapBytes",
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            "SuiteSupport",
        ],
        path: "Benchmarks/DerivedBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
        name: "CollectionBenchmarks",
        dependencies: [
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            .product(name: "HashTreeCollections", package: "swift-collections"),
            "SuiteSupport",
        ],
        path: "Benchmarks/CollectionBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // Saving a store's state with FastStorePersistence: the dispatch with
    // saving on and off, flushed writes, bytes written, opening a file,
    // against a whole-state JSON save per action.
    .executableTarget(
        name: "PersistenceBenchmarks",
        dependencies: [
            .product(name: "FastStore", package: "FastStore"),
            .product(name: "FastStorePersistence", package: "FastStore"),
            .product(name: "Benchmark", package: "benchmark"),
            .product(name: "GRDB", package: "GRDB.swift"),
            "SuiteSupport",
        ],
        path: "Benchmarks/PersistenceBenchmarks",
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
            "SuiteSupport",
        ],
        path: "Benchmarks/FacadeBenchmarks",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
]

let package = Package(
    name: "FastStoreBenchmarks",
    // macOS 15 / iOS 18: the strategies and the driver use Synchronization's
    // `Mutex`, which needs them (FastStore itself needs macOS 14 / iOS 17).
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "FastStore", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/ordo-one/TextTable.git", from: "0.0.2"),
    ] + (runnerOnly ? [] : [
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // GRDB reading the same todos as rows, beside a persisted open
        // (PersistenceBenchmarks): the version FastStorePersistence uses.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ]),
    targets: runnerTargets + (runnerOnly ? [] : suiteTargets),
    swiftLanguageModes: [.v6]
)

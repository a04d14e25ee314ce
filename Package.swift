// swift-tools-version: 6.2
// 6.2: the tests use Swift Testing's exit tests (`#expect(processExitsWith:)`),
// which Swift 6.2 introduced.
import PackageDescription

// Internal invariant checks (`_invariantCheck()` and the code under
// `#if FASTSTORE_INTERNAL_CHECKS`) are compiled into debug builds only.
// Benchmarks build in release and refuse to run with the checks on (see
// Benchmarks/).
let internalChecks: [SwiftSetting] = [
    .define("FASTSTORE_INTERNAL_CHECKS", .when(configuration: .debug)),
]

// CI's release step (`.ci/run`) runs the tests against the library built
// with -O. Optimizing the test code itself adds nothing to that, and
// optimizing FastStoreTests took most of the step (docs/benchmarks/
// MEASUREMENTS.md, "CI's release step"): with FASTSTORE_UNOPTIMIZED_TESTS=1
// the test targets build -Onone.
// The flag exists only when the variable is set, so a package depending on
// FastStore never sees it.
let testCode: [SwiftSetting] = Context.environment["FASTSTORE_UNOPTIMIZED_TESTS"] == "1" ? [.unsafeFlags(["-Onone"])] : []

let package = Package(
    name: "FastStore",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "FastStore", targets: ["FastStore"]),
        // ReSwift 6's API (and ReSwiftConsumer's components) over FastStore's
        // store: existing ReSwift code moves over by changing its import.
        .library(name: "FastStoreReSwift", targets: ["FastStoreReSwift"]),
        // `TestStore`: exhaustive tests of a reducer and its middleware, with
        // failures reported to Swift Testing or XCTest.
        .library(name: "FastStoreTesting", targets: ["FastStoreTesting"]),
        // A store's state kept in a SQLite file across launches, saved in
        // O(changed), crash-safe (GRDB; the FastStore library itself keeps
        // no dependency but swift-atomics).
        .library(name: "FastStorePersistence", targets: ["FastStorePersistence"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `swift package generate-documentation` (the DocC catalogs under
        // each product's sources; `scripts/docs.sh`). A plugin: no product
        // links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // FastStorePersistence's database: SQLite through GRDB (the system's
        // libsqlite3; Debian: libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "FastStore",
            dependencies: ["CFastStore", .product(name: "Atomics", package: "swift-atomics")],
            swiftSettings: internalChecks
        ),
        // The thread-local slot of FastStore's tracking (C: Swift has no
        // thread-local storage of its own). Internal: no product exports it.
        .target(name: "CFastStore"),
        .target(
            name: "FastStoreReSwift",
            dependencies: ["FastStore", .product(name: "Atomics", package: "swift-atomics")]
        ),
        .target(
            name: "FastStoreTesting",
            dependencies: ["FastStore"]
        ),
        .target(
            name: "FastStorePersistence",
            dependencies: ["FastStore", "CFastStorePersistence", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // `sqlite3_db_config`, variadic, out of Swift's reach (C; the
        // system's SQLite, which GRDB links).
        .target(name: "CFastStorePersistence", linkerSettings: [.linkedLibrary("sqlite3")]),
        // `Sources/CJemalloc` (jemalloc, for the benchmarks' memory figures)
        // is no target of this package: `Benchmarks/Package.swift` declares
        // it, so the FastStore library can never link it.
        .target(
            name: "FastStoreTestSupport",
            dependencies: ["FastStore"],
            path: "Tests/FastStoreTestSupport",
            swiftSettings: internalChecks
        ),
        .testTarget(
            name: "FastStoreTests",
            dependencies: [
                "FastStore",
                "FastStoreTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: internalChecks + testCode
        ),
        .testTarget(
            name: "FastStoreReSwiftTests",
            dependencies: [
                "FastStoreReSwift", "FastStore", "FastStoreTestSupport",
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: testCode
        ),
        .testTarget(
            name: "FastStoreTestingTests",
            dependencies: ["FastStoreTesting", "FastStore"],
            swiftSettings: testCode
        ),
        // The persistence tests' model (state, seeded actions, reference),
        // shared with the process they kill.
        .target(
            name: "FastStorePersistenceTestSupport",
            dependencies: ["FastStore", "FastStorePersistence", "FastStoreTestSupport"],
            path: "Tests/FastStorePersistenceTestSupport"
        ),
        // The process `PersistenceCrashTests` kills with SIGKILL.
        .executableTarget(
            name: "PersistenceCrashChild",
            dependencies: ["FastStorePersistence", "FastStorePersistenceTestSupport", "FastStore"],
            path: "Tests/PersistenceCrashChild"
        ),
        .testTarget(
            name: "FastStorePersistenceTests",
            dependencies: [
                "FastStorePersistence", "FastStore", "FastStorePersistenceTestSupport", "FastStoreTestSupport", "PersistenceCrashChild",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: testCode
        ),
    ],
    swiftLanguageModes: [.v6]
)

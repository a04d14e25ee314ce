// swift-tools-version: 6.1
import PackageDescription

// Internal invariant checks (`_invariantCheck()`, `_debugOnly {}`) are compiled
// into debug builds only. Benchmarks build in release and refuse to run with
// the checks on (see Benchmarks/).
let internalChecks: [SwiftSetting] = [
    .define("FASTSTORE_INTERNAL_CHECKS", .when(configuration: .debug)),
]

let package = Package(
    name: "FastStore",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
    products: [
        .library(name: "FastStore", targets: ["FastStore"]),
        // ReSwift 6's API (and ReSwiftConsumer's components) over FastStore's
        // store: existing ReSwift code moves over by changing its import.
        .library(name: "FastStoreReSwift", targets: ["FastStoreReSwift"]),
        // jemalloc, for the benchmarks' memory figures only. The FastStore
        // library never links it; nothing but `Benchmarks/` imports it.
        .library(name: "CJemalloc", targets: ["CJemalloc"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "FastStore",
            dependencies: [.product(name: "Atomics", package: "swift-atomics")],
            swiftSettings: internalChecks
        ),
        .target(
            name: "FastStoreReSwift",
            dependencies: ["FastStore", .product(name: "Atomics", package: "swift-atomics")]
        ),
        .systemLibrary(
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
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
            swiftSettings: internalChecks
        ),
        .testTarget(
            name: "FastStoreReSwiftTests",
            dependencies: ["FastStoreReSwift", "FastStore", .product(name: "Atomics", package: "swift-atomics")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

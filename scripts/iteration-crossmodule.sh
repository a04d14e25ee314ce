#!/usr/bin/env bash
# Iteration speed as a client sees it: writes a throwaway client package to a
# temporary directory, depending on this checkout by path, builds it in
# release and times `for x in list { sum &+= x }` over a VersionedList<Int>
# of 1,000,000 elements against the same loop over an [Int] (and
# `list.forEach`). Prints the median of each and the ratios to Array.
#
#   scripts/iteration-crossmodule.sh [REPS]     (default 201 samples of each)
#
# Each loop sits in a plain function of a client package, as in an app: the
# optimizer's choices there (what it inlines, whether it vectorizes the
# per-leaf loop) can differ from those in Benchmarks/, where each loop sits
# inside the benchmark's measurement loop. Not run by CI: timings on a shared
# machine are noisy. Writes nothing in the repository; the temporary package
# is removed on exit.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-201}
case "$reps" in ''|*[!0-9]*) echo "usage: $0 [REPS]" >&2; exit 2 ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/faststore-iteration.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/Sources/IterationClient"

# A path dependency's identity is its directory's name.
cat > "$tmp/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "IterationClient",
    dependencies: [.package(path: "$repo")],
    targets: [
        .executableTarget(
            name: "IterationClient",
            dependencies: [.product(name: "FastStore", package: "$(basename "$repo")")]),
    ],
    swiftLanguageModes: [.v6]
)
EOF

cat > "$tmp/Sources/IterationClient/main.swift" <<'EOF'
import FastStore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Kept out of line and fed through `opaque`, so that neither the loops nor
// the inputs are folded away; each loop's sum is checked below.
@inline(never) func opaque<T>(_ x: T) -> T { x }
@inline(never) func sumArray(_ a: [Int]) -> Int { var s = 0; for x in a { s &+= x }; return s }
@inline(never) func sumList(_ l: VersionedList<Int>) -> Int { var s = 0; for x in l { s &+= x }; return s }
@inline(never) func sumListForEach(_ l: VersionedList<Int>) -> Int { var s = 0; l.forEach { s &+= $0 }; return s }

func nanoseconds() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec)
}

let n = 1_000_000
let reps = Int(CommandLine.arguments[1])!
let array = opaque(Array(0 ..< n))
let list = opaque(VersionedList(0 ..< n))
let expected = n * (n - 1) / 2
let loops: [(String, () -> Int)] = [
    ("Array for-in", { sumArray(array) }),
    ("VersionedList for-in", { sumList(list) }),
    ("VersionedList forEach", { sumListForEach(list) }),
]
// In 5 rounds of the three loops, so that they share the machine's moods;
// each loop runs a block of samples in a row (its data warm in the cache,
// as in a loop over the same collection), the first one not counted.
var samples = [[UInt64]](repeating: [], count: loops.count)
let rounds = 5
for round in 0 ..< rounds {
    for (k, loop) in loops.enumerated() {
        let block = reps / rounds + (round < reps % rounds ? 1 : 0)
        for i in -1 ..< block {
            let start = nanoseconds()
            let sum = loop.1()
            if i >= 0 { samples[k].append(nanoseconds() - start) }
            precondition(sum == expected, "\(loop.0): wrong sum")
        }
    }
}
func rounded(_ x: Double, _ digits: Double) -> Double {
    let scale = digits == 1 ? 10.0 : 100.0
    return (x * scale).rounded() / scale
}
let medians = samples.map { Double($0.sorted()[$0.count / 2]) / 1000 }
print("1,000,000 Int, median of \(reps) runs each (client package, release)")
for (k, loop) in loops.enumerated() {
    let name = loop.0 + String(repeating: " ", count: max(0, 24 - loop.0.count))
    let ratio = k == 0 ? "" : "   \(rounded(medians[k] / medians[0], 2))x Array"
    print("\(name)\(rounded(medians[k], 1)) µs\(ratio)")
}
EOF

echo "building the client package in release (against $repo)..." >&2
swift build -c release --package-path "$tmp" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; exit 1; }
"$tmp/.build/release/IterationClient" "$reps"

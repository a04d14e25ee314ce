#!/usr/bin/env bash
# Typechecks FastStore's `#if canImport(Combine)` code on Linux, where Combine
# does not exist, by building the library against a minimal stand-in module
# named Combine (only the two symbols FastStore uses). It proves the Apple-only
# branches compile; it does not run them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/Combine"
cat > "$work/Package.swift" <<'MANIFEST'
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "CombinePathsCheck",
    dependencies: [.package(url: "https://github.com/apple/swift-atomics", from: "1.3.0")],
    targets: [
        .target(name: "Combine"),
        .target(name: "CFastStore"),
        .target(name: "FastStore", dependencies: ["Combine", "CFastStore", .product(name: "Atomics", package: "swift-atomics")]),
    ],
    swiftLanguageModes: [.v6]
)
MANIFEST
cat > "$work/Sources/Combine/Combine.swift" <<'SHIM'
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher
    var objectWillChange: ObjectWillChangePublisher { get }
}
public final class ObservableObjectPublisher: @unchecked Sendable {
    public init() {}
    public func send() {}
}
SHIM
ln -s "$root/Sources/FastStore" "$work/Sources/FastStore"
ln -s "$root/Sources/CFastStore" "$work/Sources/CFastStore"
cd "$work"
out="$(swift build 2>&1)" || { echo "$out"; echo "Combine code paths do not compile"; exit 1; }
if grep -q "warning:" <<<"$out"; then echo "$out" | grep -A3 "warning:"; echo "Combine code paths have warnings"; exit 1; fi
echo "Combine code paths typecheck (against a stand-in Combine module)."

@_spi(Testing) import FastStore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The seed given by `FASTSTORE_SEED`, if any: randomized tests that run
/// many seeds run only this one when it is set.
public var environmentSeed: UInt64? {
    guard let text = getenv("FASTSTORE_SEED") else { return nil }
    return UInt64(String(cString: text))
}

/// How many random runs a randomized test makes: `FASTSTORE_RUNS` when set
/// (for longer soaks), else `fallback`.
public func environmentRuns(fallback: Int) -> Int {
    guard let text = getenv("FASTSTORE_RUNS"), let runs = Int(String(cString: text)) else { return fallback }
    return runs
}

/// How long a randomized test runs in this build: `optimized` where the
/// library is built with `-O` (`swift test -c release`), `checked` where it
/// runs its internal checks (the debug build, `FASTSTORE_INTERNAL_CHECKS`,
/// where a write can check its whole tree and the code is not optimized).
/// CI runs both builds (`.ci/run`): a test sized for the optimized build
/// runs the long sequences there and the checked writes here, rather than
/// the long sequences twice.
public func runLength(optimized: Int, checked: Int) -> Int {
    #if FASTSTORE_INTERNAL_CHECKS
    return checked
    #else
    return optimized
    #endif
}

/// `actual == expected`, with `unlinked` at 0.
///
/// `unlinked` is the counted object's own count of states its store's
/// change log could not link to the one it saw before (a `Derived`'s
/// `_unlinkedChecks`, a consumer's `_statistics.unlinkedConsumes`). Each
/// store has its own log of its last 128 drains, so tests running in
/// parallel never push this test's drains out: a test that stays within
/// 128 drains of what it counts gets exact counts. Read from the object
/// itself: no process-wide counter, which other tests move.
public func counts(_ actual: Int, _ expected: Int, unlinked: Int) -> Bool {
    unlinked == 0 && actual == expected
}

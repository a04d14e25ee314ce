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

/// `actual == expected` while `unlinked` is 0; `actual >= expected` after.
///
/// `unlinked` is the counted object's own count of states the change log
/// could not link to the one it saw before (a `Derived`'s
/// `_unlinkedChecks`, a consumer's `_statistics.unlinkedConsumes`). The
/// log keeps the last 128 drains of every store in the process, so tests
/// running in parallel can push out a drain this test's store made; the
/// object then computes or evaluates again (correct, more work), and each
/// such state can only add to the count, never hide a change. Read from
/// the object itself: no process-wide counter, which other tests move.
public func counts(_ actual: Int, _ expected: Int, unlinked: Int) -> Bool {
    unlinked == 0 ? actual == expected : actual >= expected
}

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

/// Watches the shared change log for dropped drains (see
/// `StateConsumer._changeLogDropCount`): a test that counts skipped work
/// (journaled consumes, derived computations) holds its exact counts only
/// while no drain it relies on was dropped by tests running in parallel.
public struct ChangeLogWatch: Sendable {
    private let start: Int

    public init() { start = StateConsumer<Int>._changeLogDropCount }

    /// Whether no drain was dropped since the watch started.
    public var sawNoDrops: Bool { StateConsumer<Int>._changeLogDropCount == start }

    /// `actual == expected` while no drain was dropped; `actual >= expected`
    /// after a drop (each dropped drain can only add work, never hide a
    /// change).
    public func counts(_ actual: Int, _ expected: Int) -> Bool {
        sawNoDrops ? actual == expected : actual >= expected
    }
}

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

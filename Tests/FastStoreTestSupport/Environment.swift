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

/// A seeded, repeatable random number generator (SplitMix64) so that every
/// randomized test prints a seed that reproduces its failure.
///
/// Set `FASTSTORE_SEED=<n>` to rerun a failing randomized test with the seed
/// it printed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    public private(set) var seed: UInt64
    private var state: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    /// A generator seeded from `FASTSTORE_SEED` when set, else from `fallback`.
    public static func fromEnvironment(fallback: UInt64) -> SeededGenerator {
        if let text = _environment("FASTSTORE_SEED"), let seed = UInt64(text) {
            return SeededGenerator(seed: seed)
        }
        return SeededGenerator(seed: fallback)
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

func _environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}

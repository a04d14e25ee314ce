/// A fast, well-mixed hash of one 64-bit word, for dictionary keys that are
/// process-local counters (``NodeID``, ``VersionStamp``) or already hashes
/// (``_ElementKey``): the finalizer of SplitMix64 over the word and the
/// dictionary's seed.
///
/// NB: used as these keys' `_rawHashValue(seed:)`, which `Dictionary` and
/// `Set` call instead of running a SipHash `Hasher` (about 150 instructions
/// per lookup, measured under callgrind; this is about ten). The keys are
/// made by FastStore, never by an adversary, so the flooding resistance
/// SipHash buys is not needed; every bit of the word still reaches the low
/// bits the tables index by.
@inlinable @inline(__always)
internal func _mixedHash(_ word: UInt64, seed: Int) -> Int {
    var z = word &+ UInt64(bitPattern: Int64(seed)) &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int(truncatingIfNeeded: z ^ (z >> 31))
}

/// An id FastStore counts (a consumer's in its registry, a reader's in a
/// reader set) as a key of a set or dictionary, hashed with `_mixedHash`
/// rather than SipHash: the consume path looks one up per affected
/// consumer, and removing one of a set's many readers rehashes the ids
/// after it in its probe sequence.
@usableFromInline
internal struct _IDKey: Hashable {
    @usableFromInline let id: Int
    @inlinable init(_ id: Int) { self.id = id }
    @inlinable static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id }
    @inlinable func hash(into hasher: inout Hasher) { hasher.combine(id) }
    @inlinable func _rawHashValue(seed: Int) -> Int { _mixedHash(UInt64(bitPattern: Int64(id)), seed: seed) }
}

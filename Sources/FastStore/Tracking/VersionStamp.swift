import CFastStore

/// A version stamp: a process-wide, strictly increasing number taken by every
/// write to a versioned node.
///
/// Stamps never repeat, so two nodes with the same ``NodeID`` and the same
/// stamp hold the same contents: a copy shares its original's stamp until one
/// of them is written, and a write always takes a fresh stamp. That is what
/// lets FastStore answer "did this change?" without comparing contents, and
/// what rules out ABA confusion when a state is replaced by another one.
///
/// Stamps are opaque: compare them, order them, print them; only FastStore
/// makes them.
public struct VersionStamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw counter value. Only its equality and order mean anything.
    @usableFromInline internal let rawValue: UInt64

    @inlinable
    internal init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A stamp no other write has taken.
    ///
    /// - Complexity: O(1), one atomic increment.
    @inlinable
    internal static func next() -> VersionStamp {
        VersionStamp(rawValue: _cfaststore_stamps_take(1) + 1)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "v\(rawValue)" }

    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    /// NB: see `_mixedHash`: what dictionaries keyed by stamps call.
    @inlinable public func _rawHashValue(seed: Int) -> Int { _mixedHash(rawValue, seed: seed) }
}

// NB: the stamp and node counters are C globals (`CFastStore`): a Swift
// global is made lazily, and each access paid a `swift_once` check and an
// accessor call.

/// Reserves `count` consecutive fresh stamps and returns the first raw value.
/// Element identities are drawn from the stamp counter, so that an identity
/// can double as the element's first write stamp.
@inlinable
internal func _reserveStamps(_ count: Int) -> UInt64 {
    precondition(count >= 0)
    return _cfaststore_stamps_take(UInt64(count)) &+ 1
}

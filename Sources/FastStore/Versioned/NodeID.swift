import CFastStore

/// The stable identity of a versioned node: assigned when a node is created,
/// kept by its copies and by every later version written from it.
///
/// Identities are opaque: compare them, hash them, print them; only FastStore
/// makes them.
public struct NodeID: Hashable, Sendable, CustomStringConvertible {
    /// The raw identifier. Only its equality means anything.
    @usableFromInline internal let rawValue: UInt64

    @inlinable
    internal init(rawValue: UInt64) { self.rawValue = rawValue }

    /// An identity no other node has.
    ///
    /// - Complexity: O(1), one atomic increment.
    @inlinable
    internal static func make() -> NodeID {
        NodeID(rawValue: _cfaststore_nodes_take() + 1)
    }

    public var description: String { "#\(rawValue)" }

    @inlinable public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
    @inlinable public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    /// NB: see `_mixedHash`: what dictionaries keyed by node call.
    @inlinable public func _rawHashValue(seed: Int) -> Int { _mixedHash(rawValue, seed: seed) }
}

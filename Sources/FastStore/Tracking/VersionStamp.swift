import Atomics

/// A version stamp: a process-wide, strictly increasing number taken by every
/// write to a versioned node.
///
/// Stamps never repeat, so two nodes with the same ``NodeID`` and the same
/// stamp hold the same contents: a copy shares its original's stamp until one
/// of them is written, and a write always takes a fresh stamp. That is what
/// lets FastStore answer "did this change?" without comparing contents, and
/// what rules out ABA confusion when a state is replaced by another one.
public struct VersionStamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw counter value. Only its equality and order mean anything.
    public let rawValue: UInt64

    @inlinable
    internal init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A stamp no other write has taken.
    ///
    /// - Complexity: O(1), one atomic increment.
    @inlinable
    internal static func next() -> VersionStamp {
        VersionStamp(rawValue: _stampCounter.loadThenWrappingIncrement(ordering: .relaxed) + 1)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "v\(rawValue)" }
}

/// The stable identity of a versioned node: assigned when a node is created,
/// kept by its copies and by every later version written from it.
public struct NodeID: Hashable, Sendable, CustomStringConvertible {
    /// The raw identifier. Only its equality means anything.
    public let rawValue: UInt64

    @inlinable
    internal init(rawValue: UInt64) { self.rawValue = rawValue }

    /// An identity no other node has.
    ///
    /// - Complexity: O(1), one atomic increment.
    @inlinable
    internal static func make() -> NodeID {
        NodeID(rawValue: _nodeIDCounter.loadThenWrappingIncrement(ordering: .relaxed) + 1)
    }

    public var description: String { "#\(rawValue)" }
}

@usableFromInline internal let _stampCounter = ManagedAtomic<UInt64>(0)
@usableFromInline internal let _nodeIDCounter = ManagedAtomic<UInt64>(0)

/// A value FastStore can see the identity and version of: ``Versioned`` nodes
/// and the versioned collections.
///
/// Two values with equal `nodeID` and `version` have equal contents.
public protocol VersionedValue {
    /// The identity of this value's node, kept across copies and writes.
    var nodeID: NodeID { get }
    /// The stamp of this value's latest write.
    var version: VersionStamp { get }
}

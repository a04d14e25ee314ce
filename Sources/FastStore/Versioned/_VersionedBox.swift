/// The shared storage of a ``Versioned`` node: its value, its identity and
/// the stamp of its latest write.
///
/// Copies of a `Versioned` share one box until one of them is written; the
/// writer then copies the box (copy-on-write) and takes a fresh stamp, so a
/// box's `(nodeID, version)` always names exactly one value.
@usableFromInline
internal final class _VersionedBox<Value>: _VersionedBoxBase, @unchecked Sendable {
    // NB: `@unchecked Sendable` is sound because a box is only mutated while
    // uniquely referenced (see `Versioned._makeUnique()`); `Versioned` itself
    // is `Sendable` only when `Value` is.
    // NB: `@exclusivity(unchecked)`: a box is written only by the holder of
    // its only reference (copy-on-write), so the dynamic exclusivity checks
    // Swift adds to class properties would guard nothing, at a cost on every
    // write.
    @exclusivity(unchecked) @usableFromInline var value: Value

    @inlinable
    init(value: Value, nodeID: NodeID, version: VersionStamp) {
        self.value = value
        super.init(nodeID: nodeID, version: version)
    }

    /// A copy of this box for a writer: same value, identity and stamp (the
    /// writer takes a fresh stamp right after).
    @inlinable
    func copy() -> _VersionedBox {
        _VersionedBox(value: value, nodeID: nodeID, version: version)
    }
}

/// The part of every ``Versioned`` node's box that does not depend on its
/// value: its identity and stamp, at the same place in every box, so the
/// root identity of any `Versioned` state is read without generics (see
/// `_TrackingIdentity.reader(for:)`).
@usableFromInline
internal class _VersionedBoxBase: @unchecked Sendable {
    // NB: `@unchecked Sendable`: see `_VersionedBox`.
    @usableFromInline final let nodeID: NodeID
    @exclusivity(unchecked) @usableFromInline final var version: VersionStamp

    @inlinable
    init(nodeID: NodeID, version: VersionStamp) {
        self.nodeID = nodeID
        self.version = version
    }
}

/// Marks ``Versioned``: a struct whose only stored property is its box, so
/// that its bits are a `_VersionedBoxBase` reference.
@usableFromInline
internal protocol _BoxedVersionedValue {}

extension Versioned: _BoxedVersionedValue {}

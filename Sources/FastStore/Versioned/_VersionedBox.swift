/// The shared storage of a ``Versioned`` node: its value, its identity and
/// the stamp of its latest write.
///
/// Copies of a `Versioned` share one box until one of them is written; the
/// writer then copies the box (copy-on-write) and takes a fresh stamp, so a
/// box's `(nodeID, version)` always names exactly one value.
@usableFromInline
internal final class _VersionedBox<Value>: @unchecked Sendable {
    // NB: `@unchecked Sendable` is sound because a box is only mutated while
    // uniquely referenced (see `Versioned._makeUnique()`); `Versioned` itself
    // is `Sendable` only when `Value` is.
    // NB: `@exclusivity(unchecked)`: a box is written only by the holder of
    // its only reference (copy-on-write), so the dynamic exclusivity checks
    // Swift adds to class properties would guard nothing, at a cost on every
    // write.
    @exclusivity(unchecked) @usableFromInline var value: Value
    @usableFromInline let nodeID: NodeID
    @exclusivity(unchecked) @usableFromInline var version: VersionStamp

    @inlinable
    init(value: Value, nodeID: NodeID, version: VersionStamp) {
        self.value = value
        self.nodeID = nodeID
        self.version = version
    }

    /// A copy of this box for a writer: same value, identity and stamp (the
    /// writer takes a fresh stamp right after).
    @inlinable
    func copy() -> _VersionedBox {
        _VersionedBox(value: value, nodeID: nodeID, version: version)
    }
}

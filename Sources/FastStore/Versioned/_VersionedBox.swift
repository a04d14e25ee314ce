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
    @usableFromInline var value: Value
    @usableFromInline let nodeID: NodeID
    @usableFromInline var version: VersionStamp

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

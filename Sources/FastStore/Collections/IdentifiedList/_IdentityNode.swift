/// A node of an ``_IdentityIndex``: a ``_IdentityBranch`` or a
/// ``_IdentityLeaf``, told apart by `isLeaf`.
@usableFromInline
internal class _IdentityNode {
    @usableFromInline let isLeaf: Bool

    @inlinable init(isLeaf: Bool) { self.isLeaf = isLeaf }

    /// Calls `body` with every entry below this node.
    @inlinable
    final func forEachEntry(_ body: (UInt64) throws -> Void) rethrows {
        if isLeaf {
            for entry in unsafeDowncast(self, to: _IdentityLeaf.self).entries { try body(entry) }
        } else {
            for child in unsafeDowncast(self, to: _IdentityBranch.self).children { try child.forEachEntry(body) }
        }
    }
}

/// Up to ``_IdentityIndex/leafCapacity`` entries sharing the fragment bits
/// of their path, unordered.
@usableFromInline
internal final class _IdentityLeaf: _IdentityNode {
    @usableFromInline @exclusivity(unchecked) var entries: ContiguousArray<UInt64>

    @inlinable init(entries: ContiguousArray<UInt64>) {
        self.entries = entries
        super.init(isLeaf: true)
    }

    /// A copy with room for `extra` more entries (and no more).
    @inlinable
    func copy(reserving extra: Int) -> _IdentityLeaf {
        var copied = ContiguousArray<UInt64>()
        copied.reserveCapacity(entries.count &+ extra)
        copied.append(contentsOf: entries)
        return _IdentityLeaf(entries: copied)
    }
}

/// Children by the 5 fragment bits at this level, packed by `bitmap`.
@usableFromInline
internal final class _IdentityBranch: _IdentityNode {
    @usableFromInline @exclusivity(unchecked) var bitmap: UInt32
    @usableFromInline @exclusivity(unchecked) var children: ContiguousArray<_IdentityNode>

    @inlinable init(bitmap: UInt32, children: ContiguousArray<_IdentityNode>) {
        self.bitmap = bitmap
        self.children = children
        super.init(isLeaf: false)
    }

    @inlinable
    func copy() -> _IdentityBranch { _IdentityBranch(bitmap: bitmap, children: children) }

    /// The `k`th child, unretained (the caller holds this branch).
    @inlinable @inline(__always)
    func _unretainedChild(_ k: Int) -> Unmanaged<_IdentityNode> {
        children.withUnsafeBufferPointer { Unmanaged.passUnretained($0[k]) }
    }

    /// One leaf of every entry below, when every child is a leaf and they
    /// hold `limit` entries or fewer together; nil otherwise.
    @inlinable
    func mergedLeaf(atMost limit: Int) -> _IdentityLeaf? {
        var total = 0
        for child in children {
            guard child.isLeaf else { return nil }
            total &+= unsafeDowncast(child, to: _IdentityLeaf.self).entries.count
            if total > limit { return nil }
        }
        var entries = ContiguousArray<UInt64>()
        entries.reserveCapacity(total)
        for child in children { entries.append(contentsOf: unsafeDowncast(child, to: _IdentityLeaf.self).entries) }
        return _IdentityLeaf(entries: entries)
    }
}

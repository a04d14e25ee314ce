/// Journals the writes a store's drain makes to versioned nodes, while
/// installed on the draining thread by ``record(_:)``. Versioned types
/// journal through ``_Tracking``'s hooks, never here directly.
///
/// Besides the writes in order, the journal keeps one *link* per write: the
/// stamp the write produced, the node, and the stamp it was written from.
/// Stamps never repeat, so a stamp names one write and one content: a chain
/// of links from stamp `a` to stamp `b` of a node proves that the node at `b`
/// is the node at `a` changed only by journaled writes, whichever copy of the
/// node each write went through. That is what a parent needs to take a
/// child's write for a pass-through (``chains(_:from:to:)``), and what a
/// consumer needs to take a drain's writes for the whole step from the old
/// root to the new one.
@usableFromInline
internal final class _WriteJournal {
    /// One journaled write: the node and the stamp it was written from.
    @usableFromInline
    internal struct _Link {
        @usableFromInline let node: NodeID
        @usableFromInline let from: VersionStamp
        @inlinable init(node: NodeID, from: VersionStamp) { self.node = node; self.from = from }
    }

    /// Every write in order, with its node.
    // NB: unchecked exclusivity: a journal is used by the one thread it is
    // installed on.
    @exclusivity(unchecked) @usableFromInline var writes: [(node: NodeID, kind: _WriteKind)] = []
    /// The link of every write, by the stamp it produced.
    @exclusivity(unchecked) @usableFromInline var links: [VersionStamp: _Link] = [:]

    @inlinable init() {}

    /// Runs `body` with this journal installed on the calling thread
    /// (nesting restores the outer journal afterwards).
    @inlinable
    func record<R>(_ body: () throws -> R) rethrows -> R {
        let context = _TrackingContext.current
        let outer = context.journal
        context.journal = self
        defer { context.journal = outer }
        return try body()
    }

    /// Moves the writes out, leaving the journal a fresh buffer: the writes
    /// keep a buffer of their own size, never one sized by an earlier,
    /// larger drain.
    @inlinable
    func _takeWrites() -> [(node: NodeID, kind: _WriteKind)] {
        var taken: [(node: NodeID, kind: _WriteKind)] = []
        taken.reserveCapacity(8)
        swap(&taken, &writes)
        return taken
    }

    /// Forgets every write, keeping the storage.
    @inlinable
    func reset() {
        writes.removeAll(keepingCapacity: true)
        links.removeAll(keepingCapacity: true)
    }

    /// Journals a write of `node` from stamp `old` to stamp `new`.
    ///
    /// - Complexity: O(1) amortized: one dictionary insertion, one append.
    @usableFromInline
    func _write(_ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ kind: _WriteKind) {
        links[new] = _Link(node: node, from: old)
        writes.append((node, kind))
    }

    /// Whether the journal proves that `node` went from stamp `old` to stamp
    /// `new` only through journaled writes (or did not change).
    ///
    /// - Complexity: O(writes of `node` between the two stamps): one lookup
    ///   per link, walking back from `new`. Stamps grow with time, so the
    ///   walk ends.
    @inlinable
    func chains(_ node: NodeID, from old: VersionStamp, to new: VersionStamp) -> Bool {
        var stamp = new
        while stamp != old {
            guard stamp > old, let link = links[stamp], link.node == node else { return false }
            stamp = link.from
        }
        return true
    }
}

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
    /// The link of every write with the stamp it produced, in increasing
    /// stamp order.
    // NB: an array searched by halving rather than a dictionary: a drain's
    // writes take their stamps in the order they are journaled (almost
    // always), so a link is appended, not hashed in, and forgetting them
    // all is one `removeAll`.
    @exclusivity(unchecked) @usableFromInline var _links: [(stamp: VersionStamp, link: _Link)] = []

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
        _links.removeAll(keepingCapacity: true)
    }

    /// Journals a write of `node` from stamp `old` to stamp `new`.
    ///
    /// - Complexity: O(1) amortized: two appends (when `new` is the
    ///   largest stamp journaled yet, as it almost always is; else an
    ///   insertion in order).
    @usableFromInline
    func _write(_ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ kind: _WriteKind) {
        let entry = (stamp: new, link: _Link(node: node, from: old))
        if let last = _links.last, last.stamp >= new {
            let k = _firstLink(atOrAfter: new)
            if k < _links.count, _links[k].stamp == new {
                _links[k] = entry  // NB: stamps never repeat; kept total anyway.
            } else {
                _links.insert(entry, at: k)
            }
        } else {
            _links.append(entry)
        }
        writes.append((node, kind))
    }

    /// The position of the first link whose stamp is not below `stamp`.
    @inlinable
    func _firstLink(atOrAfter stamp: VersionStamp) -> Int {
        var low = 0, high = _links.count
        while low < high {
            let mid = (low &+ high) >> 1
            if _links[mid].stamp < stamp { low = mid &+ 1 } else { high = mid }
        }
        return low
    }

    /// The link of the write that produced `stamp`, if journaled here.
    ///
    /// - Complexity: O(1) for the latest write, else O(log writes).
    @inlinable
    func link(producing stamp: VersionStamp) -> _Link? {
        if let last = _links.last, last.stamp == stamp { return last.link }
        let k = _firstLink(atOrAfter: stamp)
        return k < _links.count && _links[k].stamp == stamp ? _links[k].link : nil
    }

    /// Whether the journal proves that `node` went from stamp `old` to stamp
    /// `new` only through journaled writes (or did not change).
    ///
    /// - Complexity: O(writes of `node` between the two stamps × log
    ///   writes): one lookup per link, walking back from `new`. Stamps grow with time, so the
    ///   walk ends.
    @inlinable
    func chains(_ node: NodeID, from old: VersionStamp, to new: VersionStamp) -> Bool {
        var stamp = new
        while stamp != old {
            guard stamp > old, let link = link(producing: stamp), link.node == node else { return false }
            stamp = link.from
        }
        return true
    }
}

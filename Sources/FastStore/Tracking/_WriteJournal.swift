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
    /// The link of every write with the stamp it produced, in the order the
    /// writes were journaled; in increasing stamp order while `_sorted`.
    // NB: an array rather than a dictionary: a drain's writes take their
    // stamps in the order they are journaled, except that a parent takes
    // its stamp before a write through a child and journals it after (a
    // list's element write), so a nested write journals its stamps out of
    // order. Keeping the array sorted on every write cost a binary search
    // and a shift per parent (quadratic in the depth of a nested write);
    // lookups are almost always of one of the last few links (a parent
    // asks for its child's write, just journaled), so links are appended,
    // looked up from the end, and sorted only when a lookup reaches past
    // the last few.
    @exclusivity(unchecked) @usableFromInline var _links: [(stamp: VersionStamp, link: _Link)] = []
    /// Whether `_links` is in increasing stamp order.
    @exclusivity(unchecked) @usableFromInline var _sorted = true

    @inlinable init() {}

    /// Runs `body` with this journal installed on the calling thread
    /// (nesting restores the outer journal afterwards).
    @inlinable
    func record<R>(_ body: () throws -> R) rethrows -> R {
        // NB: installed unretained: `self` is alive for this call, and the
        // outer journal for its own installer's.
        let context = _TrackingContext.current
        let outer = context._journal
        context._journal = Unmanaged.passUnretained(self)
        defer { context._journal = outer }
        return try withExtendedLifetime(self) { try body() }
    }

    /// Moves the writes out, leaving the journal a fresh buffer sized for
    /// as many writes as these (at least 8, at most 256): the next drain of
    /// the same kind appends without growing it, and the writes a drain
    /// hands over keep a buffer sized by a recent drain, never by an old,
    /// larger one.
    ///
    /// NB: a fresh buffer of 8 cost a deep write (2 writes per level) two
    /// regrowths, a tenth of its journaling.
    @inlinable
    func _takeWrites() -> [(node: NodeID, kind: _WriteKind)] {
        var taken: [(node: NodeID, kind: _WriteKind)] = []
        taken.reserveCapacity(Swift.min(Swift.max(writes.count, 8), 256))
        swap(&taken, &writes)
        return taken
    }

    /// Moves the writes into `buffer` and keeps `buffer`'s storage, emptied,
    /// for the next drain's writes (see `_DrainChanges._reuse`).
    ///
    /// - Complexity: O(`buffer.count`), to empty it.
    @inlinable
    func _exchangeWrites(_ buffer: inout [(node: NodeID, kind: _WriteKind)]) {
        buffer._removeAllKeepingCapacity()
        swap(&buffer, &writes)
    }

    /// Forgets every write, keeping the storage.
    @inlinable
    func reset() {
        writes._removeAllKeepingCapacity()
        _links._removeAllKeepingCapacity()
        _sorted = true
    }

    /// Journals a write of `node` from stamp `old` to stamp `new`.
    ///
    /// - Complexity: O(1) amortized: two appends.
    @usableFromInline
    func _write(_ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ kind: _WriteKind) {
        if _sorted, let last = _links.last, last.stamp >= new { _sorted = false }
        _links.append((stamp: new, link: _Link(node: node, from: old)))
        writes.append((node, kind))
    }

    /// How many of the last links a lookup scans before it sorts the links
    /// and searches by halving.
    @inlinable static var _recentLinks: Int { 8 }

    /// The position of the first link whose stamp is not below `stamp`
    /// (the links must be sorted).
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
    /// - Complexity: O(1) for one of the last few writes; else O(log
    ///   writes), after an O(writes log writes) sort the first time links
    ///   were journaled out of order.
    @inlinable
    func link(producing stamp: VersionStamp) -> _Link? {
        if let last = _links.last, last.stamp == stamp { return last.link }
        return _olderLink(producing: stamp)
    }

    /// ``link(producing:)`` past the last link, out of line.
    @usableFromInline
    func _olderLink(producing stamp: VersionStamp) -> _Link? {
        let count = _links.count
        var k = count
        let stop = Swift.max(0, count &- Self._recentLinks)
        while k > stop {
            k &-= 1
            if _links[k].stamp == stamp { return _links[k].link }
        }
        guard stop > 0 else { return nil }
        if !_sorted {
            // NB: stamps never repeat, so the order is total.
            _links.sort { $0.stamp < $1.stamp }
            _sorted = true
        }
        k = _firstLink(atOrAfter: stamp)
        return k < count && _links[k].stamp == stamp ? _links[k].link : nil
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

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

    /// Every write in order, with its node: `_writes[0 ..< _count]`.
    // NB: unchecked exclusivity: a journal is used by the one thread it is
    // installed on.
    //
    // NB: the writes and the links in two buffers of `_capacity` this
    // journal owns and keeps across drains, not arrays: an append was a
    // uniqueness check (a runtime call) and a capacity check per array per
    // write, a third of a write's journaling. A drain's writes are copied
    // out once (`_takeWrites`, `_exchangeWrites`).
    @exclusivity(unchecked) @usableFromInline var _writes: UnsafeMutablePointer<(node: NodeID, kind: _WriteKind)>
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
    @exclusivity(unchecked) @usableFromInline var _links: UnsafeMutablePointer<(stamp: VersionStamp, link: _Link)>
    /// How many writes (and links) are journaled.
    @exclusivity(unchecked) @usableFromInline var _count = 0
    /// The room in each buffer.
    @exclusivity(unchecked) @usableFromInline var _capacity: Int
    /// Whether `_links` is in increasing stamp order.
    @exclusivity(unchecked) @usableFromInline var _sorted = true

    /// The room the buffers start with, and go back to at a ``reset()``
    /// after a drain that grew them past ``_keptCapacity``.
    @inlinable static var _initialCapacity: Int { 32 }
    /// The most room a journal keeps between drains: a bulk drain's
    /// buffers are let go at the next ``reset()``.
    @inlinable static var _keptCapacity: Int { 1_024 }

    @inlinable init() {
        _capacity = Self._initialCapacity
        _writes = .allocate(capacity: _capacity)
        _links = .allocate(capacity: _capacity)
    }

    deinit {
        // NB: node ids, write kinds and stamps: nothing to deinitialize.
        _writes.deallocate()
        _links.deallocate()
    }

    /// Every write journaled since the last ``reset()``, in order.
    ///
    /// - Complexity: O(writes): a copy.
    @inlinable
    var writes: [(node: NodeID, kind: _WriteKind)] {
        Array(UnsafeBufferPointer(start: _writes, count: _count))
    }

    /// Runs `body` with this journal installed on the calling thread
    /// (nesting restores the outer journal afterwards).
    @inlinable
    func record<R>(_ body: () throws -> R) rethrows -> R {
        // NB: installed unretained: `self` is alive for this call, and the
        // outer journal for its own installer's.
        try _TrackingContext._withCurrent { context in
            let outer = context._journal
            context._journal = Unmanaged.passUnretained(self)
            defer { context._journal = outer }
            return try withExtendedLifetime(self) { try body() }
        }
    }

    /// The writes, in an array of their own (for a drain's changes).
    ///
    /// - Complexity: O(writes); one allocation.
    @inlinable
    func _takeWrites() -> [(node: NodeID, kind: _WriteKind)] { writes }

    /// Copies the writes into `buffer`, replacing its contents and keeping
    /// its storage when it has the room (see `_DrainChanges._reuse`).
    ///
    /// - Complexity: O(writes + `buffer.count`).
    @inlinable
    func _exchangeWrites(_ buffer: inout [(node: NodeID, kind: _WriteKind)]) {
        // NB: the buffer's own slots are overwritten in place (one
        // uniqueness check for all of them), the surplus removed at once,
        // and only writes past its count appended: a steady stream of
        // drains of a few writes each mostly overwrites. Emptying it and
        // appending each write cost a uniqueness check per element twice.
        // (`append(contentsOf:)` of a buffer cost more than either.)
        let count = _count
        let overwritten = Swift.min(count, buffer.count)
        if overwritten != 0 {
            let writes = _writes
            buffer.withUnsafeMutableBufferPointer { slots in
                var k = 0
                while k < overwritten {
                    slots[k] = writes[k]
                    k &+= 1
                }
            }
        }
        if buffer.count > count {
            buffer.removeLast(buffer.count &- count)
        } else {
            var k = overwritten
            while k < count {
                buffer.append(_writes[k])
                k &+= 1
            }
        }
    }

    /// Forgets every write, keeping the storage unless a drain grew it past
    /// ``_keptCapacity``.
    @inlinable
    func reset() {
        _count = 0
        _sorted = true
        if _capacity > Self._keptCapacity { _resize(to: Self._initialCapacity) }
    }

    /// Journals a write of `node` from stamp `old` to stamp `new`.
    ///
    /// - Complexity: O(1) amortized.
    @usableFromInline
    func _write(_ node: NodeID, from old: VersionStamp, to new: VersionStamp, _ kind: _WriteKind) {
        let count = _count
        if count == _capacity { _resize(to: count &* 2) }
        if _sorted && count != 0 && _links[count &- 1].stamp >= new { _sorted = false }
        (_writes + count).initialize(to: (node, kind))
        (_links + count).initialize(to: (stamp: new, link: _Link(node: node, from: old)))
        _count = count &+ 1
    }

    /// Moves the journaled writes and links into buffers with room for
    /// `capacity` (at least `_count`).
    @usableFromInline
    func _resize(to capacity: Int) {
        precondition(capacity >= _count, "FastStore: internal error: a write journal shrunk below its writes")
        let writes = UnsafeMutablePointer<(node: NodeID, kind: _WriteKind)>.allocate(capacity: capacity)
        writes.moveInitialize(from: _writes, count: _count)
        _writes.deallocate()
        _writes = writes
        let links = UnsafeMutablePointer<(stamp: VersionStamp, link: _Link)>.allocate(capacity: capacity)
        links.moveInitialize(from: _links, count: _count)
        _links.deallocate()
        _links = links
        _capacity = capacity
    }

    /// How many of the last links a lookup scans before it sorts the links
    /// and searches by halving.
    @inlinable static var _recentLinks: Int { 8 }

    /// The position of the first link whose stamp is not below `stamp`
    /// (the links must be sorted).
    @inlinable
    func _firstLink(atOrAfter stamp: VersionStamp) -> Int {
        var low = 0, high = _count
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
        if _count != 0, _links[_count &- 1].stamp == stamp { return _links[_count &- 1].link }
        return _olderLink(producing: stamp)
    }

    /// ``link(producing:)`` past the last link, out of line.
    @usableFromInline
    func _olderLink(producing stamp: VersionStamp) -> _Link? {
        let count = _count
        var k = count
        let stop = Swift.max(0, count &- Self._recentLinks)
        while k > stop {
            k &-= 1
            if _links[k].stamp == stamp { return _links[k].link }
        }
        guard stop > 0 else { return nil }
        if !_sorted {
            // NB: stamps never repeat, so the order is total.
            var links = UnsafeMutableBufferPointer(start: _links, count: count)
            links.sort { $0.stamp < $1.stamp }
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

extension _WriteJournal {
    /// One journaled step, as every drain takes it (the store's, and the
    /// simulated ones of tests and benchmarks): runs `body` under this
    /// journal (reset first), then makes the step's changes from the
    /// journal and logs them in the store's change log, where consumers find a
    /// drain's writes by the root stamp it produced. With `oldRoot` `nil`
    /// (plain state) it only runs `body`.
    ///
    /// - Parameters:
    ///   - oldRoot: The state's root identity and stamp before the step, or
    ///     `nil` for plain state.
    ///   - newRoot: The root after the step (read once `body` returned).
    ///   - spare: A drain the log handed back to reuse (taken), replaced by
    ///     the one the log hands back now.
    ///   - log: The store's change log (`nil` only for plain state).
    ///   - body: The step's mutations.
    /// - Returns: The step's changes, `nil` for plain state.
    /// - Complexity: `body`, plus O(1) per journaled write, plus the log's
    ///   O(1) amortized.
    @inlinable
    func recordStep(
        oldRoot: _RootVersion?,
        newRoot: () -> _RootVersion,
        reusing spare: inout _DrainChanges?,
        log: _ChangeLog?,
        _ body: () throws -> Void
    ) rethrows -> _DrainChanges? {
        guard let oldRoot else {
            try body()
            return nil
        }
        reset()
        try record(body)
        let changes = _DrainChanges.make(journal: self, oldRoot: oldRoot, newRoot: newRoot(), reusing: &spare)
        // NB: the log hands back a drain it dropped and nobody holds: the
        // next step's changes and its writes' buffer.
        spare = log?.publish(changes)
        return changes
    }
}

import Atomics
/// What one drain of a ``Store`` changed: its journaled writes and the root
/// identities of the state before and after.
///
/// The writes describe the step from `oldRoot` to `newRoot` only when
/// ``isChained`` is true: the root kept its identity and the journal holds a
/// chain of writes from its old stamp to its new one. A reducer that assigns
/// a whole new state (`state = other`, `state = saved`) breaks the chain;
/// consumers then evaluate every selector.
@usableFromInline
internal final class _DrainChanges: @unchecked Sendable {
    // NB: `@unchecked Sendable`: immutable once published. The only write
    // after that is `_reuse`, by a drain the change log handed the object
    // to when it dropped it and found no other reference to it.
    @exclusivity(unchecked) @usableFromInline var writes: [(node: NodeID, kind: _WriteKind)]
    @exclusivity(unchecked) @usableFromInline var oldRoot: _RootVersion
    @exclusivity(unchecked) @usableFromInline var newRoot: _RootVersion
    /// Whether `writes` account for every change from `oldRoot` to
    /// `newRoot` (see the type's documentation).
    @exclusivity(unchecked) @usableFromInline var isChained: Bool

    /// The changes of a drain whose writes `journal` recorded, the state's
    /// root being at `oldRoot` before the drain and at `newRoot` after.
    ///
    /// - Complexity: O(writes): the journal's writes are copied here (the
    ///   change log keeps them when chained; the journal keeps its buffers
    ///   for the next drain).
    @inlinable
    init(journal: _WriteJournal, oldRoot: _RootVersion, newRoot: _RootVersion) {
        let isChained = Self._chains(journal, oldRoot, newRoot)
        // NB: kept when not chained too: they are not the whole step then
        // (the log refuses such a drain), but Observation still fires the
        // registrations they affect, besides the store's whole-state one.
        self.writes = journal._takeWrites()
        self.oldRoot = oldRoot
        self.newRoot = newRoot
        self.isChained = isChained
    }

    /// Whether `journal` holds a chain of writes of the root from `oldRoot`
    /// to `newRoot`.
    @inlinable
    static func _chains(_ journal: _WriteJournal, _ oldRoot: _RootVersion, _ newRoot: _RootVersion) -> Bool {
        oldRoot.node == newRoot.node && journal.chains(newRoot.node, from: oldRoot.version, to: newRoot.version)
    }

    /// The changes of the drain `journal` recorded: `spare` (taken), a drain
    /// the change log dropped and handed back from
    /// ``_ChangeLog/publish(_:)``, made into them when there is one, else a
    /// new object.
    @inlinable
    static func make(
        journal: _WriteJournal, oldRoot: _RootVersion, newRoot: _RootVersion, reusing spare: inout _DrainChanges?
    ) -> _DrainChanges {
        guard let reused = spare else { return _DrainChanges(journal: journal, oldRoot: oldRoot, newRoot: newRoot) }
        spare = nil
        reused._reuse(journal: journal, oldRoot: oldRoot, newRoot: newRoot)
        return reused
    }

    /// Makes this object, which nobody else holds, the changes of a new
    /// drain: as `init(journal:oldRoot:newRoot:)`, except that the journal's
    /// writes are copied into this object's emptied buffer, so neither the
    /// object nor a buffer is allocated when the buffer has the room.
    ///
    /// A buffer grown past 256 writes (a bulk drain) is not reused: the
    /// writes get an array of their own, as without reuse, so the buffers
    /// going round stay as small as `_WriteJournal._takeWrites` makes them
    /// and the log's bound on writes still bounds its memory.
    ///
    /// - Complexity: O(this object's old writes + the new ones).
    @inlinable
    func _reuse(journal: _WriteJournal, oldRoot: _RootVersion, newRoot: _RootVersion) {
        isChained = Self._chains(journal, oldRoot, newRoot)
        if writes.capacity <= 256 {
            journal._exchangeWrites(&writes)
        } else {
            writes = journal._takeWrites()
        }
        self.oldRoot = oldRoot
        self.newRoot = newRoot
    }

    /// Changes computed rather than journaled: a history move's writes
    /// (`_TreeDiff`), chained when they cover the whole step.
    @usableFromInline
    init(writes: [(node: NodeID, kind: _WriteKind)], oldRoot: _RootVersion, newRoot: _RootVersion, isChained: Bool) {
        self.writes = writes
        self.oldRoot = oldRoot
        self.newRoot = newRoot
        self.isChained = isChained && oldRoot.node == newRoot.node
    }
}

/// The recent drains' changes, by the root stamp they produced: how a
/// ``StateConsumer`` learns what a drain wrote, whatever path the state took
/// to reach it (a store subscription on the draining thread, a main-queue
/// delivery that skipped states, a subscriber that calls
/// `consume(newState:)` later or on another thread).
///
/// Stamps never repeat, so the root stamp a drain produced names that drain:
/// a consumer whose last state is at root stamp `a` and that is handed a
/// state at root stamp `b` asks for the drains from `a` to `b` and gets
/// their writes, or nothing when the log cannot prove the whole step (a
/// state built elsewhere, a broken chain, an evicted drain). Nothing is the
/// slow path: every selector runs and compares.
///
/// Bounded: a ring of the last ``capacity`` drains, holding at most
/// ``writeCapacity`` writes in all (older drains are dropped first).
@usableFromInline
internal final class _ChangeLog: @unchecked Sendable {
    // NB: `@unchecked Sendable`: every field is guarded by `lock`.
    @usableFromInline static let shared = _ChangeLog(capacity: 128, writeCapacity: 1 << 15)

    @usableFromInline let lock = _Lock()
    @usableFromInline let capacity: Int
    @usableFromInline let writeCapacity: Int
    /// The logged drains, a ring: `ring[(start + k) % capacity]` for `k` in
    /// `0 ..< count`, oldest first.
    // NB: a ring searched from the newest entry rather than a dictionary: a
    // consumer almost always asks for the latest drain, found at the first
    // comparison, with no hashing.
    @exclusivity(unchecked) @usableFromInline var ring: [_DrainChanges?]
    @exclusivity(unchecked) @usableFromInline var start = 0
    @exclusivity(unchecked) @usableFromInline var count = 0
    @exclusivity(unchecked) @usableFromInline var writeCount = 0
    /// How many drains were dropped since the log was made: a consume that
    /// needed one of them compared instead (tests tell that case apart).
    @exclusivity(unchecked) @usableFromInline var droppedCount = 0

    @usableFromInline
    init(capacity: Int, writeCapacity: Int) {
        self.capacity = capacity
        self.writeCapacity = writeCapacity
        ring = Array(repeating: nil, count: capacity)
    }

    /// Logs a drain's changes, when they are chained and changed the root.
    ///
    /// Returns a drain it dropped to make room that nothing else holds: the
    /// caller may reuse it (`_DrainChanges._reuse`) for its next drain. A
    /// consumer lets its spans go right after planning a consume, so once
    /// the log is full that is the usual case, and a steady stream of
    /// drains allocates neither changes nor buffers.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable @discardableResult
    func publish(_ changes: _DrainChanges) -> _DrainChanges? {
        guard changes.isChained, changes.oldRoot != changes.newRoot,
              changes.writes.count <= writeCapacity else { return nil }
        lock.lock()
        defer { lock.unlock() }
        var reusable: _DrainChanges? = nil
        while count == capacity || writeCount + changes.writes.count > writeCapacity {
            let dropped = _dropOldest()
            if reusable == nil { reusable = dropped }
        }
        ring[(start + count) % capacity] = changes
        count += 1
        writeCount += changes.writes.count
        // NB: under the lock, so no other thread can take a new reference
        // from the ring meanwhile; one that still holds it makes it shared.
        if reusable != nil {
            if isKnownUniquelyReferenced(&reusable) {
                // NB: the last other holder released it outside this lock:
                // order its reads before the caller's writes (the check
                // itself promises no ordering).
                atomicMemoryFence(ordering: .acquiring)
            } else {
                reusable = nil
            }
        }
        return reusable
    }

    /// Must hold the lock.
    @usableFromInline @discardableResult
    func _dropOldest() -> _DrainChanges? {
        let dropped = ring[start]
        if let dropped { writeCount -= dropped.writes.count }
        ring[start] = nil
        start = (start + 1) % capacity
        count -= 1
        droppedCount &+= 1
        return dropped
    }

    /// Replaces `spans` with the logged drains that lead from `old` to `new`,
    /// oldest first. Returns `false` (leaving `spans` unspecified) when the
    /// log cannot prove the whole step.
    ///
    /// - Complexity: O(drains logged since `old`'s drain), at most
    ///   ``capacity``; O(1) for the latest drain.
    @inlinable
    func spans(from old: _RootVersion, to new: _RootVersion, into spans: inout [_DrainChanges]) -> Bool {
        spans._removeAllKeepingCapacity()
        guard old.node == new.node, old.version < new.version else { return false }
        lock.lock()
        defer { lock.unlock() }
        var wanted = new.version
        var k = count - 1
        while wanted != old.version {
            // Newest first: the drain that produced `wanted` is at or before k.
            while k >= 0, ring[(start + k) % capacity]!.newRoot.version != wanted { k -= 1 }
            guard k >= 0 else { return false }
            let span = ring[(start + k) % capacity]!
            guard span.newRoot.node == new.node, span.oldRoot.version >= old.version else { return false }
            spans.append(span)
            wanted = span.oldRoot.version
            k -= 1
        }
        spans.reverse()
        return true
    }

    /// Whether something that `isRelevant` selects was written between
    /// `old` and `new`: `false` when the log proves the whole step (see
    /// ``spans(from:to:into:)``) and none of its writes is relevant, `true`
    /// when one is, `nil` when the log cannot link `old` to `new` (a drain
    /// dropped, a replaced root: anything may have changed). Used by ``Derived`` to tell whether its memo still holds,
    /// without collecting the spans.
    ///
    /// `isRelevant` runs under the log's lock: it must not call into
    /// FastStore or user code.
    ///
    /// - Complexity: O(drains logged since `old`'s drain + their writes),
    ///   stopping at the first relevant write.
    @inlinable
    func mayHaveWritten(
        from old: _RootVersion, to new: _RootVersion, where isRelevant: (NodeID, _WriteKind) -> Bool
    ) -> Bool? {
        guard old.node == new.node, old.version < new.version else { return nil }
        lock.lock()
        defer { lock.unlock() }
        var wanted = new.version
        var k = count - 1
        while wanted != old.version {
            while k >= 0, ring[(start + k) % capacity]!.newRoot.version != wanted { k -= 1 }
            guard k >= 0 else { return nil }
            let span = ring[(start + k) % capacity]!
            guard span.newRoot.node == new.node, span.oldRoot.version >= old.version else { return nil }
            for write in span.writes where isRelevant(write.node, write.kind) { return true }
            wanted = span.oldRoot.version
            k -= 1
        }
        return false
    }
}

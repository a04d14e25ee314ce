import Atomics

/// One store's recent drains' changes, by the root stamp they produced: how a
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
/// Each store owns one, and only its drains (and history moves) are logged
/// there, so what another store does never pushes this store's drains out.
/// A watcher handed a state finds the log through the root node the state
/// carries (``_ChangeLogDirectory``), and keeps it for the next state.
///
/// Bounded: a ring of the last ``capacity`` drains, holding at most
/// ``writeCapacity`` writes in all (older drains are dropped first).
@usableFromInline
internal final class _ChangeLog: @unchecked Sendable {
    // NB: `@unchecked Sendable`: every field is guarded by `lock`, except
    // `registeredNode`, which only the owner's drain (serial) writes and
    // whose atomic others load.
    /// A store's: the last 128 drains, 32,768 writes in all.
    /// Not ``wanted`` until a watcher that may read it appears.
    @inlinable static func forStore() -> _ChangeLog { _ChangeLog(capacity: 128, writeCapacity: 1 << 15, wanted: false) }

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

    /// The root node whose drains this log holds, as the directory files
    /// it (0: none yet).
    @usableFromInline let registeredNode = _OwnedAtomic<UInt64>(0)

    /// Whether drains are logged. A store's log is not, until a watcher
    /// that may read it appears: until then ``publish(_:)`` only files
    /// the log, and a drain hands its changes to the watchers it calls
    /// itself (the wake-up hubs delivering on the draining thread, the
    /// Observation hub). The watchers that read the log mark it at their
    /// first contact with a state of the store, before they could need a
    /// drain: a consumer's first consume outside a hub, a `Derived`'s
    /// first read, a main-queue hub when it is made
    /// (``markWanted(under:cached:)``); any read of the log marks it too.
    /// A step the log did not record is one it cannot prove: the reader
    /// compares everything, as for a dropped drain. Set once, never
    /// cleared.
    ///
    /// (`wanted` and `registeredNode` are `_OwnedAtomic`s.)
    @usableFromInline let wanted: _OwnedAtomic<Bool>

    /// Marks the log wanted (see ``wanted``).
    @inlinable @inline(__always)
    func _markWanted() {
        if !wanted.load(ordering: .relaxed) { wanted.store(true, ordering: .relaxed) }
    }

    /// An empty log; its ring is allocated at the first publish.
    ///
    /// - Complexity: O(1).
    @usableFromInline
    init(capacity: Int, writeCapacity: Int, wanted: Bool = true) {
        precondition(capacity > 0, "a change log holds at least one drain")
        self.capacity = capacity
        self.writeCapacity = writeCapacity
        self.wanted = _OwnedAtomic(wanted)
        ring = []
    }

    /// Files the log under `node`, the root node of its store's state, if
    /// it is not filed there yet (a store files its log at creation, so
    /// that a watcher of its first state finds it; a drain that replaces
    /// the root files it anew).
    ///
    /// - Complexity: O(1) when filed there already; else a directory update.
    @inlinable
    func file(under node: NodeID) {
        let previous = registeredNode.load(ordering: .relaxed)
        guard node.rawValue != previous else { return }
        _ChangeLogDirectory.shared.file(self, under: node, leaving: previous == 0 ? nil : NodeID(rawValue: previous))
        registeredNode.store(node.rawValue, ordering: .relaxed)
    }

    /// Takes this log out of the directory: its owner goes away. Watchers
    /// that found it may still hold it and read it.
    ///
    /// - Complexity: O(logs filed under its root node).
    @usableFromInline
    func unfile() {
        let node = registeredNode.exchange(0, ordering: .relaxed)
        if node != 0 { _ChangeLogDirectory.shared.remove(self, from: NodeID(rawValue: node)) }
    }

    /// Logs a drain's changes, when they are chained and changed the root
    /// and the log is ``wanted``; files the log under the new root either
    /// way.
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
        // NB: a new root (a reducer that assigned a whole new state): filed
        // under it from now on.
        file(under: changes.newRoot.node)
        guard wanted.load(ordering: .relaxed) else { return nil }
        lock.lock()
        if ring.isEmpty { ring = Array(repeating: nil, count: capacity) }
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
        _markWanted()
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
        _markWanted()
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

@_spi(Testing)
extension Store {
    /// Whether the store's change log logs its drains (see
    /// `_ChangeLog.wanted`), and how many it holds (test hook).
    public var _changeLogState: (wanted: Bool, logged: Int) {
        (_changeLog.wanted.load(ordering: .relaxed), _changeLog.lock.withLock { _changeLog.count })
    }
}

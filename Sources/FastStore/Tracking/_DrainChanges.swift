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
    // NB: `@unchecked Sendable`: immutable once made.
    @usableFromInline let writes: [(node: NodeID, kind: _WriteKind)]
    @usableFromInline let oldRoot: _RootVersion
    @usableFromInline let newRoot: _RootVersion
    /// Whether `writes` account for every change from `oldRoot` to
    /// `newRoot` (see the type's documentation).
    @usableFromInline let isChained: Bool

    /// The changes of a drain whose writes `journal` recorded, the state's
    /// root being at `oldRoot` before the drain and at `newRoot` after.
    ///
    /// - Complexity: O(writes of the root); the writes array is shared, not
    ///   copied.
    @inlinable
    init(journal: _WriteJournal, oldRoot: _RootVersion, newRoot: _RootVersion) {
        self.writes = journal.writes
        self.oldRoot = oldRoot
        self.newRoot = newRoot
        self.isChained = oldRoot.node == newRoot.node
            && journal.chains(newRoot.node, from: oldRoot.version, to: newRoot.version)
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
/// Bounded: the oldest drains are dropped beyond ``capacity`` entries or
/// ``writeCapacity`` writes in all.
@usableFromInline
internal final class _ChangeLog: @unchecked Sendable {
    // NB: `@unchecked Sendable`: every field is guarded by `lock`.
    @usableFromInline static let shared = _ChangeLog(capacity: 128, writeCapacity: 1 << 15)

    @usableFromInline let lock = _Lock()
    @usableFromInline let capacity: Int
    @usableFromInline let writeCapacity: Int
    @exclusivity(unchecked) @usableFromInline var byNewRoot: [VersionStamp: _DrainChanges] = [:]
    /// The stamps of `byNewRoot`, oldest first, as a ring.
    @exclusivity(unchecked) @usableFromInline var order: [VersionStamp] = []
    @exclusivity(unchecked) @usableFromInline var oldest = 0
    @exclusivity(unchecked) @usableFromInline var writeCount = 0

    @usableFromInline
    init(capacity: Int, writeCapacity: Int) {
        self.capacity = capacity
        self.writeCapacity = writeCapacity
        order.reserveCapacity(capacity)
    }

    /// Logs a drain's changes, when they are chained and changed the root.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    func publish(_ changes: _DrainChanges) {
        guard changes.isChained, changes.oldRoot != changes.newRoot,
              changes.writes.count <= writeCapacity else { return }
        lock.lock()
        defer { lock.unlock() }
        while order.count - oldest >= capacity || writeCount + changes.writes.count > writeCapacity {
            _dropOldest()
        }
        byNewRoot[changes.newRoot.version] = changes
        order.append(changes.newRoot.version)
        writeCount += changes.writes.count
    }

    /// Must hold the lock.
    @usableFromInline
    func _dropOldest() {
        let stamp = order[oldest]
        oldest += 1
        if let dropped = byNewRoot.removeValue(forKey: stamp) { writeCount -= dropped.writes.count }
        if oldest >= 64, oldest * 2 >= order.count {
            order.removeFirst(oldest)
            oldest = 0
        }
    }

    /// Replaces `spans` with the logged drains that lead from `old` to `new`,
    /// oldest first. Returns `false` (leaving `spans` unspecified) when the
    /// log cannot prove the whole step.
    ///
    /// - Complexity: O(drains between the two roots), at most ``capacity``.
    @inlinable
    func spans(from old: _RootVersion, to new: _RootVersion, into spans: inout [_DrainChanges]) -> Bool {
        spans.removeAll(keepingCapacity: true)
        guard old.node == new.node, old.version < new.version else { return false }
        lock.lock()
        defer { lock.unlock() }
        var stamp = new.version
        while stamp != old.version {
            guard spans.count < capacity, let span = byNewRoot[stamp], span.newRoot.node == new.node,
                  span.oldRoot.version >= old.version else { return false }
            spans.append(span)
            stamp = span.oldRoot.version
        }
        spans.reverse()
        return true
    }
}

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
    /// writes are copied into this object's buffer in place
    /// (`_WriteJournal._exchangeWrites`), so neither the object nor a
    /// buffer is allocated when the buffer has the room.
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

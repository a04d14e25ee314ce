import Atomics

// Replacements: a published state swapped for another one (a history move:
// undo, redo, jump) in the store's order, through its publish path.
//
// A replacement is queued like an action, behind the actions pending when it
// was asked for, and applied by the drain in place of a batch: the drain
// computes the state to publish (on the draining thread, so it sees every
// action queued before it), diffs it against the published one
// (`_TreeDiff`), logs the diff's writes as the step's changes, publishes,
// and notifies once. Dispatch pays nothing for it but one emptiness check
// per batch (`_takeNextBatchOrFinish`).

/// One queued replacement: how to get the state to publish, and its outcome.
@usableFromInline
internal final class _StoreReplacement<State>: @unchecked Sendable {
    // NB: `@unchecked Sendable`: `produce` and `error` are used by the
    // draining thread, then read by the asking thread after `done` (an
    // acquire of the drainer's release).
    /// Given the published state, the state to publish, or `nil` for none.
    @usableFromInline let produce: (State) throws -> State?
    @usableFromInline var error: (any Error)?
    @usableFromInline let done = ManagedAtomic<Bool>(false)

    @usableFromInline
    init(_ produce: @escaping (State) throws -> State?) { self.produce = produce }

    /// Marks the replacement applied (published and notified, or refused).
    @usableFromInline
    func finish() { done.store(true, ordering: .releasing) }
}

extension Store {
    /// Applies `replacement` in the store's order and returns once it was
    /// published and its subscribers told (or it was refused): drains here
    /// when no drain runs, else queues it behind the pending actions and
    /// waits for the draining thread.
    ///
    /// - Throws: what `produce` threw; ``StoreHistoryError/insideDrain``
    ///   when called from this store's own drain, or from another store's
    ///   drain nested in it on this thread (it would wait for itself).
    /// - Complexity: the diff of the two states (see `_TreeDiff`), plus the
    ///   consumers the diff's writes affect; the wait for the actions queued
    ///   before it.
    func _replace(_ replacement: _StoreReplacement<State>) throws {
        // NB: anywhere up this thread's stack, not only innermost: from
        // another store's drain nested in this one's, the move would be
        // queued behind this store's drain and wait for it.
        guard !_TrackingContext.isDraining(ObjectIdentifier(self)) else {
            throw StoreHistoryError.insideDrain
        }
        _lock.lock()
        let mustDrain = _guarded.pointee.queue.enqueue(marker: replacement)
        _lock.unlock()
        if mustDrain {
            _owned.pointee.replacement = replacement
            _drain()
        } else {
            while !replacement.done.load(ordering: .acquiring) { _yieldThread() }
        }
        if let error = replacement.error { throw error }
    }

    /// On the draining thread: computes `replacement`'s state into the
    /// working copy and its changes. Returns `false` when there is nothing
    /// to publish (`produce` returned `nil` or threw). The drain finishes
    /// the replacement once its subscribers were told.
    @usableFromInline
    func _applyReplacement(_ replacement: _StoreReplacement<State>, changes: inout _DrainChanges?) -> Bool {
        let current = _owned.pointee.working
        let target: State
        do {
            guard let produced = try replacement.produce(current) else { return false }
            target = produced
        } catch {
            replacement.error = error
            return false
        }
        guard let rootVersion = _rootVersion else {
            _owned.pointee.working = target
            return true
        }
        let published: State
        let step: _DrainChanges
        if let republication = _TreeDiff.republication(from: current, to: target) {
            published = republication.state
            step = _DrainChanges(
                writes: republication.writes, oldRoot: rootVersion(current), newRoot: rootVersion(published),
                isChained: republication.chained)
        } else {
            published = target
            step = _DrainChanges(writes: [], oldRoot: rootVersion(current), newRoot: rootVersion(target), isChained: false)
        }
        _owned.pointee.working = published
        _changeLog.publish(step)
        changes = step
        return true
    }
}

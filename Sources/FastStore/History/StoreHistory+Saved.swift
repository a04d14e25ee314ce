// What the FastStorePersistence product needs of a history, at package
// access (no public API): its entries as patches, to write in a file, and a
// history made from them, to undo across a relaunch.

/// The entries of a ``StoreHistory`` kept as patches, as a file holds them.
///
/// Entry `first + k` is `patches[k]` applied to entry `first + k - 1`;
/// `patches[0]` is empty (the oldest entry has nothing before it). The
/// state at `current` is the one the history was saved with, kept apart
/// (the file's own state).
package struct _SavedHistory<State: Codable>: Codable {
    package var first: Int
    package var current: Int
    package var patches: [StatePatch<State>]

    package init(first: Int, current: Int, patches: [StatePatch<State>]) {
        self.first = first
        self.current = current
        self.patches = patches
    }

    /// The entries the current one reaches through patches `keep` accepts:
    /// a refused patch cuts the history there, as a missing one does in
    /// ``StoreHistory/_saved()`` (the entries beyond it go).
    ///
    /// - Complexity: O(entries) calls of `keep`, at most.
    package func reachable(through keep: (StatePatch<State>) -> Bool) -> _SavedHistory {
        let position = current - first
        var lower = position
        while lower > 0, keep(patches[lower]) { lower -= 1 }
        var upper = position
        while upper + 1 < patches.count, keep(patches[upper + 1]) { upper += 1 }
        return _SavedHistory(first: first + lower, current: current,
                             patches: [StatePatch()] + patches[(lower + 1) ..< (upper + 1)])
    }

    /// Why a decoded history cannot be restored, or `nil`.
    package var problem: String? {
        if patches.isEmpty { return "it holds no entry" }
        // NB: numbers no history reaches (and whose arithmetic would
        // overflow) are damage, not a trap.
        if first < 0 || first > Int.max / 4 { return "its first entry \(first) is out of range" }
        if current < first || current >= first + patches.count {
            return "its current entry \(current) is not among its entries \(first)..<\(first + patches.count)"
        }
        return nil
    }
}

extension StoreHistory where State: Codable {
    /// Starts recording `store`, with ``StoreHistory/Storage/patches``,
    /// from the entries of `saved`, whose current entry's state is `state`.
    /// When the store's state is not `state` (it was dispatched to since),
    /// an entry without actions is recorded for the difference.
    ///
    /// Restored entries have no actions (the file keeps none). Of more
    /// entries than `limit`, those before the current one are kept first
    /// (what undo reaches), then those after it.
    ///
    /// - Precondition: `limit.entries >= 1`; `saved.problem == nil`.
    /// - Complexity: O(the entries' operations), to pack them.
    package convenience init(_ store: Store<State, Action>, limit: Limit, restoring saved: _SavedHistory<State>, state: State) {
        _usagePrecondition(limit.entries >= 1, "FastStore: StoreHistory limit must keep at least 1 entry, got \(limit.entries)")
        precondition(saved.problem == nil, "FastStore: internal error: restoring a history that \(saved.problem ?? "")")
        let records = saved.patches.enumerated().map { k, patch in
            _HistoryRecord<State, Action>(actions: [], state: nil, patch: k == 0 ? nil : _PatchBytes.pack(patch.operations))
        }
        let timeline = _HistoryTimeline(limit: limit.entries, first: saved.first, entries: records, current: saved.current)
        self.init(store, limit: limit, codec: _HistoryPatchCodec(checkpointEvery: 0), restored: (timeline, state))
    }

    /// The entries to save, the state at the current one, and the store's
    /// generation of the last publication the history saw (see
    /// `Store._generationBeingNotified`), or `nil` for a history kept as
    /// ``StoreHistory/Storage/states``.
    ///
    /// The entries saved are those the current one reaches through patches:
    /// back to the nearest entry without a patch (its state could not be
    /// diffed, or it is the oldest), forward to the entry before the next
    /// one without a patch.
    ///
    /// - Complexity: O(the saved entries' operations), under the history's
    ///   lock.
    package func _saved() -> (history: _SavedHistory<State>, state: State, generation: UInt64)? {
        guard _codec != nil else { return nil }
        return _lock.withLock {
            let kept = _timeline.indices
            var lower = _timeline.current
            while lower > kept.lowerBound, _timeline[lower]!.patch != nil { lower -= 1 }
            var upper = _timeline.current
            while upper < kept.upperBound, _timeline[upper + 1]!.patch != nil { upper += 1 }
            var patches = [StatePatch<State>()]
            for index in stride(from: lower + 1, through: upper, by: 1) {
                patches.append(StatePatch(operations: _PatchBytes.unpack(_timeline[index]!.patch!)))
            }
            return (_SavedHistory(first: lower, current: _timeline.current, patches: patches), _currentState, _currentGeneration)
        }
    }
}

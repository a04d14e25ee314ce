/// One recorded entry as a ``StoreHistory`` keeps it: the batch's actions,
/// and either the whole state, or the patch from the entry before (with the
/// whole state kept at checkpoints), or both.
internal struct _HistoryRecord<State, Action>: _TimelineEntry {
    var actions: [Action]
    /// The state, kept for every entry with `.states` storage; with
    /// `.patches`, for the first entry, where a patch could not be made, and
    /// at checkpoints (tests only).
    var state: State?
    /// The writes from the entry before to this one, packed (`_PatchBytes`;
    /// `nil` for the first entry, and with `.states` storage).
    var patch: [UInt8]?

    var holdsState: Bool { state != nil }
}

/// How a ``StoreHistory`` with `.patches` storage makes and applies its
/// patches: closures over `StatePatch`, which needs a `Codable` state that
/// the history's own type does not require.
internal struct _HistoryPatchCodec<State> {
    /// Every how many entries the whole state is kept too (0: never).
    let checkpointEvery: Int
    /// The operations that turn the first state into the second, packed,
    /// and whether there are none.
    let diff: (State, State) throws -> (bytes: [UInt8], isEmpty: Bool)
    /// The state the packed operations of the entries make of the given
    /// one, one entry after the other, or (with `inverted`) the state they
    /// were made from, the last entry's undone first.
    let apply: (_ entries: [[UInt8]], _ inverted: Bool, State) throws -> State

    init(checkpointEvery: Int) where State: Codable {
        self.checkpointEvery = checkpointEvery
        diff = { old, new in
            let operations = try StatePatch<State>(from: old, to: new).operations
            return (_PatchBytes.pack(operations), operations.isEmpty)
        }
        apply = { entries, inverted, state in
            // NB: one patch of all the entries: `apply` walks the state once
            // per run of operations on unrelated paths, not once per entry.
            try StatePatch<State>(operations: _PatchBytes.unpack(entries, inverted: inverted)).apply(to: state)
        }
    }
}

extension _HistoryTimeline {
    /// The state of entry `index` (kept), rebuilt from the nearest entry whose
    /// state is known (a kept one, or `current`, whose state is `currentState`)
    /// by applying the patches between, forwards or inverted.
    ///
    /// NB: the nearest known state on either side is taken. Going forward
    /// from below applies the patches of the entries after it, up to
    /// `index`; one without a patch keeps its state, so it would be nearer.
    /// Going back from above applies the patches of the entries down to
    /// `index + 1`, the one above included; where that one has no patch,
    /// the entry before it keeps its state too (`StoreHistory._record`), and
    /// is nearer.
    ///
    /// With `towardCurrent` (a move, whose state is republished), the state
    /// is rebuilt from the current one whenever the entries between have
    /// their patches, even when entry `index` keeps its own; else from the
    /// known state nearest to `index` on the current one's side. The
    /// patches applied are then only those of the entries between the two
    /// states, so a node none of them wrote keeps the current state's
    /// identity and stamp, and its watchers are not told. (A kept state,
    /// entry 0's say, holds the nodes as they were then: every node a
    /// rebuild has made since differs from them in identity, its value
    /// unchanged, and its watchers would be told.)
    ///
    /// - Complexity: one patch application of the d entries' operations, d
    ///   the distance to the state it starts from (for a move, the current
    ///   one's, or the nearest kept state between): a walk from the root per
    ///   run of operations on unrelated paths (`StatePatch.apply(to:)`).
    func state<State, Action>(
        at index: Int, currentState: State, codec: _HistoryPatchCodec<State>, towardCurrent: Bool = false
    ) throws -> State where Entry == _HistoryRecord<State, Action> {
        let start: Int?
        // NB: an entry without a patch holds its state: only those that do
        // are read (through the flags: `holdingState(in:)`).
        if towardCurrent && index != current
            && holdingState(in: index < current ? index + 1 ... current : current + 1 ... index).allSatisfy({ self[$0]!.patch != nil }) {
            start = current
        } else {
            start = nearestHoldingState(to: index, toward: towardCurrent ? current : nil)
        }
        guard let known = start else {
            preconditionFailure("FastStore: internal error: no known state around history entry \(index)")
        }
        let state = known == current ? currentState : self[known]!.state!
        if known == index { return state }
        var patches: [[UInt8]] = []
        patches.reserveCapacity(abs(index - known))
        for entry in entries(known < index ? known + 1 ... index : index + 1 ... known) { patches.append(entry!.patch!) }
        return try codec.apply(patches, known > index, state)
    }
}

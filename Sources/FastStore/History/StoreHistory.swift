/// Undo, redo and time travel for a ``Store``: an opt-in recorder of every
/// state the store publishes, with the actions that produced it.
///
/// ```swift
/// let history = StoreHistory(store, limit: .entries(1000))
/// store.dispatch(.toggle(id))
/// try history.undo()          // the state before the toggle, published
/// try history.redo()
/// try history.jump(to: history.indices.lowerBound)
/// ```
///
/// ## Entries
/// One entry per **batch**, not per action: the store publishes (and
/// notifies) once per batch, so a batch's intermediate states were never
/// published, never seen by a subscriber, and have nothing to go back to.
/// An entry holds the published state and the batch's actions, in order.
/// Entry 0 is the state when the history was made; entries are numbered on
/// from there, and keep their number when older ones are evicted. A history
/// restored from a file (FastStorePersistence's `PersistentState.history(of:limit:)`)
/// keeps the numbers it was saved with, and its restored entries have no
/// actions.
///
/// ## Moves
/// ``undo()``, ``redo()`` and ``jump(to:)`` republish an entry's state
/// through the store's publish path: subscribers are told once, and
/// ``StateConsumer``s of versioned state are handed the writes between the
/// published state and the entry's (a diff of the two versions of the tree,
/// in O(what differs)), so they skip what did not change, however many
/// entries apart the two states are. A move takes its place in the store's
/// order like an action: it applies after every action dispatched before it
/// was called, and before those dispatched after it returns. It returns once
/// the state is published and subscribers were told; when another thread is
/// draining, it waits for its turn.
///
/// Dispatching after an undo drops the entries after the current one (the
/// redo branch). Past the limit, the oldest entries are evicted.
///
/// One history per store: a second one would record the first one's moves
/// as nothing (moves carry no actions), and with ``Storage/patches`` its
/// entries and moves would be wrong.
///
/// ## Storage
/// By default (``Storage/states``) an entry keeps its whole state. Entries
/// share their unchanged parts with each other and with the store
/// (copy-on-write): what an entry retains is what its batch wrote, for
/// versioned state the paths it copied (a few KiB per one-row action on a
/// large list). With ``Storage/patches`` (a `Codable` state) an entry keeps
/// its batch's ``StatePatch`` instead: far less memory, for a diff per
/// recorded batch and a patch applied per entry a move crosses. See
/// ``Storage`` for the trade, and docs/benchmarks/MEASUREMENTS.md for its
/// figures.
public final class StoreHistory<State, Action> {
    /// How many entries a history keeps.
    public struct Limit: Sendable, Hashable {
        /// The most entries kept (at least 1); older ones are evicted.
        public var entries: Int

        /// At most `count` entries.
        public static func entries(_ count: Int) -> Limit { Limit(entries: count) }
    }

    /// What an entry keeps of its state.
    public struct Storage: Sendable, Hashable {
        /// Every how many entries the whole state is kept as well; `nil` for
        /// ``states``, 0 for none.
        let _checkpointEvery: Int?

        /// Each entry keeps its whole state (shared copy-on-write with the
        /// others). A move republishes the kept state.
        public static var states: Storage { Storage(_checkpointEvery: nil) }

        /// Each entry keeps its batch's patch (the operations of
        /// ``StatePatch``), not its state. Recording a batch diffs the two
        /// states (in O(what changed), on the draining thread); a move
        /// rebuilds the target state from the current one by applying the
        /// patches between (inverted to go back), then republishes it like
        /// ``states``. Needs a `Codable` state
        /// (``StoreHistory/init(_:limit:storage:)``).
        ///
        /// No whole state is kept but the first entry's (and, where a state
        /// could not be diffed because its encoding threw, that entry's and
        /// the one before it): a kept state retains every node that differs
        /// from its neighbours, which on a large list is what ``states``
        /// keeps per entry.
        ///
        /// The state's `Codable` form must describe it: decoding what a state
        /// encodes gives that state back. A patch that does not apply makes
        /// a move throw its ``PatchError`` (the move is not made), and
        /// reading that entry (`history[index]`) a precondition
        /// failure naming it. Values are told apart as ``PatchValue`` tells
        /// them: exactly (`0.0` from `-0.0`, precomposed from decomposed
        /// text), but for dictionary keys, which compare as `String`s; a
        /// `Set`, or a `Dictionary` whose keys encode it as an array, as a
        /// whole, its elements in any order.
        public static var patches: Storage { Storage(_checkpointEvery: 0) }

        /// ``patches`` with the whole state kept every `checkpointEvery`
        /// entries too (for tests of the rebuild from a kept state).
        @_spi(Testing)
        public static func _patches(checkpointEvery: Int) -> Storage {
            _usagePrecondition(checkpointEvery >= 1,
                               "FastStore: StoreHistory checkpointEvery must be at least 1, got \(checkpointEvery)")
            return Storage(_checkpointEvery: checkpointEvery)
        }
    }

    /// One recorded state.
    public struct Entry {
        /// The entry's number: 0 for the state when recording began, then one
        /// per batch recorded.
        public let index: Int
        /// The state the store published.
        public let state: State
        /// The batch's actions, in order (none for entry 0, nor for entries
        /// restored from a file).
        public let actions: [Action]
    }

    private let _store: Store<State, Action>
    private let _limit: Limit
    let _lock = _Lock()
    /// Guarded by `_lock`; written on the store's draining thread only.
    var _timeline: _HistoryTimeline<_HistoryRecord<State, Action>>
    /// The state at `_timeline.current` (the store's published state, or the
    /// state a move is publishing). Guarded by `_lock`; written on the
    /// store's draining thread only.
    // NB: implicitly unwrapped only because the subscriber is registered (and
    // captures `self`) before the store hands over its state.
    var _currentState: State!
    /// The store's generation of the last publication the history saw (see
    /// `Store._generationBeingNotified`). Guarded by `_lock`; written on the
    /// store's draining thread only.
    var _currentGeneration: UInt64 = 0
    /// How patches are made and applied; `nil` with `.states` storage.
    let _codec: _HistoryPatchCodec<State>?
    private var _subscriber: _Subscriber<State>?

    /// Starts recording `store`'s published states, keeping each whole
    /// (``Storage/states``).
    ///
    /// - Precondition: `limit.entries >= 1`.
    /// - Complexity: O(1).
    public convenience init(_ store: Store<State, Action>, limit: Limit = .entries(1000)) {
        self.init(store, limit: limit, codec: nil)
    }

    /// - Parameter restored: entries saved by an earlier history
    ///   (`StoreHistory+Saved.swift`), and the state at their current entry.
    init(_ store: Store<State, Action>, limit: Limit, codec: _HistoryPatchCodec<State>?,
         restored: (timeline: _HistoryTimeline<_HistoryRecord<State, Action>>, state: State)? = nil) {
        _usagePrecondition(limit.entries >= 1, "FastStore: StoreHistory limit must keep at least 1 entry, got \(limit.entries)")
        _store = store
        _limit = limit
        _codec = codec
        _timeline = _HistoryTimeline(limit: limit.entries)
        let owned = store._owned
        let publication = store._publication
        // NB: under the history's lock, so that a batch another thread
        // publishes right after the subscription waits in `_record` until
        // entry 0 and `_currentState` are in place (the store notifies
        // outside its own lock, so this cannot deadlock).
        _lock.withLock {
            let (subscriber, state, generation) = store._addSubscriberReadingStateAndGeneration(countsAsCauseReceiver: true) { [weak self] state in
                guard let self else { return false }
                let generation = publication.generation.load(ordering: .relaxed)
                // NB: a batch has at least one action; a history move has
                // none and is already where the timeline points (its state
                // is the republished one, equal to the one the move chose).
                guard let actions = owned.pointee.causes, !actions.isEmpty else {
                    self._lock.withLock {
                        self._currentState = state
                        self._currentGeneration = generation
                    }
                    return true
                }
                self._record(state, actions: actions, generation: generation)
                return true
            }
            _currentGeneration = generation
            if let restored, let codec {
                _timeline = restored.timeline
                _currentState = restored.state
                // NB: the store moved on from the restored entry's state
                // (dispatched to before the history was made): one entry,
                // without actions, for the difference.
                let difference = try? codec.diff(restored.state, state)
                if difference?.isEmpty != true {
                    _append(state, previous: restored.state, actions: [], patch: difference?.bytes, codec: codec)
                }
            } else {
                _currentState = state
                _timeline.record { _ in _HistoryRecord(actions: [], state: state, patch: nil) }
            }
            _subscriber = subscriber
        }
    }

    /// Records a batch's published state, on the draining thread.
    private func _record(_ state: State, actions: [Action], generation: UInt64) {
        guard let codec = _codec else {
            _lock.withLock {
                _currentState = state
                _currentGeneration = generation
                _timeline.record { _ in _HistoryRecord(actions: actions, state: state, patch: nil) }
            }
            return
        }
        // NB: the diff runs outside the lock (`_currentState` is written on
        // this thread only, once `init` released the lock).
        let previous: State = _lock.withLock { _currentState }
        let patch = try? codec.diff(previous, state).bytes
        _lock.withLock {
            _append(state, previous: previous, actions: actions, patch: patch, codec: codec)
            _currentGeneration = generation
        }
    }

    /// Records `state`, whose patch from `previous` (the current entry's
    /// state) is `patch`. Called under `_lock`.
    ///
    /// A state that cannot be diffed (`patch` is `nil`: its encoding threw)
    /// is kept whole, and so is the one before it: going back from an entry
    /// takes its patch, so the entries before one without a patch are
    /// rebuilt from there.
    private func _append(_ state: State, previous: State, actions: [Action], patch: [UInt8]?, codec: _HistoryPatchCodec<State>) {
        _currentState = state
        _timeline.record { index in
            let checkpoint = patch == nil
                || (codec.checkpointEvery > 0 && index % codec.checkpointEvery == 0)
            return _HistoryRecord(actions: actions, state: checkpoint ? state : nil, patch: patch)
        }
        if patch == nil { _timeline.update(_timeline.current - 1) { $0.state = previous } }
    }

    deinit {
        if let _subscriber { _store._removeSequenceSubscriber(_subscriber, countsAsCauseReceiver: true) }
    }

    /// The numbers of the entries kept, oldest first.
    public var indices: ClosedRange<Int> { _lock.withLock { _timeline.indices } }

    /// The number of the entry the store's state is at.
    public var currentIndex: Int { _lock.withLock { _timeline.current } }

    /// Whether ``undo()`` has an entry to go back to.
    public var canUndo: Bool { _lock.withLock { _timeline.current > _timeline.indices.lowerBound } }

    /// Whether ``redo()`` has an entry to go forward to.
    public var canRedo: Bool { _lock.withLock { _timeline.current < _timeline.indices.upperBound } }

    /// The entry numbered `index`, or `nil` when it is evicted or beyond the
    /// newest.
    ///
    /// - Complexity: O(1) with ``Storage/states``; with
    ///   ``Storage/patches``, the patches between the entry and the current
    ///   one applied (see ``jump(to:)``), under the history's lock.
    public subscript(index: Int) -> Entry? {
        _lock.withLock {
            guard let record = _timeline[index] else { return nil }
            return Entry(index: index, state: _state(at: index, record: record), actions: record.actions)
        }
    }

    /// The state of the kept entry `index`. Called under `_lock`.
    private func _state(at index: Int, record: _HistoryRecord<State, Action>) -> State {
        if let state = record.state { return state }
        guard let codec = _codec else { return record.state! }
        do {
            return try _timeline.state(at: index, currentState: _currentState, codec: codec)
        } catch {
            // NB: the patches were made by diffing the states they join; one
            // that does not apply means the state's Codable form does not
            // describe it (or a bug in FastStore).
            fatalError("FastStore: StoreHistory(storage: .patches): entry \(index) cannot be rebuilt from its patches (\(error)); does decoding what \(State.self) encodes give it back? Use storage: .states for this state")
        }
    }

    /// Republishes the entry before the current one.
    ///
    /// - Throws: ``StoreHistoryError/nothingToUndo`` at the oldest entry
    ///   kept; ``StoreHistoryError/insideDrain`` from the store's own drain.
    /// - Complexity: see ``jump(to:)``.
    public func undo() throws {
        try _move { timeline in
            guard timeline.current > timeline.indices.lowerBound else { throw StoreHistoryError.nothingToUndo }
            return timeline.current - 1
        }
    }

    /// Republishes the entry after the current one.
    ///
    /// - Throws: ``StoreHistoryError/nothingToRedo`` at the newest entry;
    ///   ``StoreHistoryError/insideDrain`` from the store's own drain.
    /// - Complexity: see ``jump(to:)``.
    public func redo() throws {
        try _move { timeline in
            guard timeline.current < timeline.indices.upperBound else { throw StoreHistoryError.nothingToRedo }
            return timeline.current + 1
        }
    }

    /// Republishes the entry numbered `index` (nothing happens when it is
    /// the current one). Later entries are kept, for ``redo()``, until the
    /// next dispatch.
    ///
    /// - Throws: ``StoreHistoryError/evicted(index:oldest:)`` for an entry
    ///   older than those kept, ``StoreHistoryError/noSuchEntry(index:newest:)``
    ///   beyond the newest, ``StoreHistoryError/insideDrain`` from the
    ///   store's own drain.
    /// - Throws: also the ``PatchError`` of a patch that did not apply
    ///   (``Storage/patches``; the move is not made).
    /// - Complexity: for versioned state, O(nodes that differ between the
    ///   two states × their stored fields), plus O(c × log n) for c changed
    ///   elements of a collection, plus the consumers those writes affect:
    ///   independent of how many entries apart the two states are. Plain
    ///   state: every consumer compares. With ``Storage/patches``, plus one
    ///   patch applied per entry between the current one and `index` (one
    ///   for an undo or redo), each in O(its writes × the depth of their
    ///   paths) through `Codable`.
    public func jump(to index: Int) throws {
        try _move { timeline in
            let kept = timeline.indices
            if index < kept.lowerBound { throw StoreHistoryError.evicted(index: index, oldest: kept.lowerBound) }
            if index > kept.upperBound { throw StoreHistoryError.noSuchEntry(index: index, newest: kept.upperBound) }
            return index
        }
    }

    /// Queues a move to the entry `target` picks, in the store's order.
    private func _move(_ target: @escaping (_HistoryTimeline<_HistoryRecord<State, Action>>) throws -> Int) throws {
        let replacement = _StoreReplacement<State> { [self] current in
            try _lock.withLock {
                let index = try target(_timeline)
                if index == _timeline.current { return nil }
                let state: State
                if let codec = _codec {
                    // NB: from the current state, even to an entry that
                    // keeps its own (see `_HistoryTimeline.state(at:)`).
                    state = try _timeline.state(at: index, currentState: current, codec: codec, towardCurrent: true)
                } else {
                    state = _timeline[index]!.state!
                }
                _timeline.current = index
                _currentState = state
                return state
            }
        }
        try _store._replace(replacement)
    }
}

extension StoreHistory where State: Codable {
    /// Starts recording `store`'s published states, keeping them as
    /// `storage` says.
    ///
    /// - Precondition: `limit.entries >= 1`.
    /// - Complexity: O(1).
    public convenience init(_ store: Store<State, Action>, limit: Limit = .entries(1000), storage: Storage) {
        self.init(store, limit: limit, codec: storage._checkpointEvery.map { _HistoryPatchCodec(checkpointEvery: $0) })
    }
}

extension StoreHistory: @unchecked Sendable where State: Sendable, Action: Sendable {}
extension StoreHistory.Entry: Sendable where State: Sendable, Action: Sendable {}

/// A misuse of a ``StoreHistory`` move.
public enum StoreHistoryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `undo()` at the oldest entry kept.
    case nothingToUndo
    /// `redo()` at the newest entry.
    case nothingToRedo
    /// `jump(to:)` an entry evicted by the limit.
    case evicted(index: Int, oldest: Int)
    /// `jump(to:)` an entry beyond the newest.
    case noSuchEntry(index: Int, newest: Int)
    /// A move called from inside the store's drain (a reducer, middleware or
    /// subscriber, or another store's drain one of them started on this
    /// thread): it would wait for itself.
    case insideDrain

    public var description: String {
        switch self {
        case .nothingToUndo: "StoreHistory: nothing to undo (at the oldest entry kept)"
        case .nothingToRedo: "StoreHistory: nothing to redo (at the newest entry)"
        case .evicted(let index, let oldest):
            "StoreHistory: entry \(index) was evicted by the limit (the oldest kept is \(oldest))"
        case .noSuchEntry(let index, let newest):
            "StoreHistory: no entry \(index) (the newest is \(newest))"
        case .insideDrain:
            "StoreHistory: a move was called from inside the store's drain (reducer, middleware or subscriber, or another store's drain they started); it would wait for itself"
        }
    }
}

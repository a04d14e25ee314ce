/// One consumer registered with a ``StateConsumer``: what `add` returns, and
/// what ``StateConsumer/remove(_:)`` and ``ConsumerBag`` take.
///
/// Handles compare by identity.
public class ConsumerHandle<State>: Hashable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: the mutable fields are touched either under
    // the owning consumer's lock (`isRemoved`, `dependencies`) or only by
    // the thread that holds the consumer's consuming turn (the selection
    // state of the subclasses). For the same reason they opt out of
    // dynamic exclusivity checks.
    //
    // NB: one allocation per consumer: the selector, the callback and the
    // last selection are stored fields of a subclass (`_SelectionHandle`,
    // `_PredictedHandle`), and `run` is a closure that captures nothing (no
    // context), made by the `add` overloads, which are `@inlinable`: it is
    // specialized for the concrete state and selection types in the
    // caller's module, where an overridden method of a generic subclass
    // would run unspecialized (metadata lookups on every call). The stored
    // properties are `final`: accessed directly, not through (unspecialized,
    // retaining) accessors.

    /// The consumer's position among its ``StateConsumer``'s registered
    /// consumers, removed ones included: callbacks run in increasing `id`
    /// order. Changed (under the owner's lock) only when the registry
    /// compacts, which keeps the order.
    @exclusivity(unchecked) @usableFromInline internal final var id: Int
    /// One evaluation of `handle` (this handle): runs the selector on a
    /// state (recording its dependencies into the recorder when given) and
    /// stores the selection, then calls `register(mustRunAlways, changed)`,
    /// which files the recorded dependencies under the owner's lock and
    /// returns whether the callback is due (the selection changed and the
    /// consumer is still registered), and then, if it is, the callback.
    ///
    /// NB: one closure rather than an evaluate / deliver pair: the change
    /// waiting for delivery lives in locals instead of the handle.
    @usableFromInline internal final let run: _ConsumerRun<State>
    /// What the selector read at its last evaluation (deduplicated), as
    /// registered in the owner's reader index. Guarded by the owner's lock.
    @exclusivity(unchecked) @usableFromInline internal final var dependencies = _DependencyList()
    /// How many times the selector ran (white-box tests count skipped
    /// evaluations with it).
    ///
    /// NB: 32 bits (wrapping), beside `registry`: together one word.
    @exclusivity(unchecked) @usableFromInline internal final var evaluationCount: UInt32 = 0
    /// The number of the registry that holds this consumer (set by its
    /// `register`, before the handle is returned, and never changed): what
    /// tells another `StateConsumer`'s handle apart without reading `id`,
    /// which its own registry may be rewriting under its own lock.
    @exclusivity(unchecked) @usableFromInline internal final var registry: UInt32 = 0
    /// Set, under the owner's lock, when the consumer is removed.
    ///
    /// NB: last, so that a subclass's first field, a `Bool`, shares its word.
    @exclusivity(unchecked) @usableFromInline internal final var isRemoved = false

    @inlinable
    internal init(id: Int, run: @escaping _ConsumerRun<State>) {
        self.id = id
        self.run = run
    }

    public static func == (lhs: ConsumerHandle, rhs: ConsumerHandle) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// ReSwiftConsumer's name for what `add` returns.
public typealias TypedConsumer<State> = ConsumerHandle<State>

/// The evaluation of a ``ConsumerHandle``, given the handle itself: see
/// ``ConsumerHandle/run``.
@usableFromInline
internal typealias _ConsumerRun<State> = (
    ConsumerHandle<State>, State, _ReadRecorder?, _ register: (_ mustRunAlways: Bool, _ changed: Bool) -> Bool
) -> Void

/// How a consumer of an `Equatable` selection is called when the
/// selection changes: the callback shapes of the `add` overloads that need
/// no adapter (an adapter closure would be one more allocation per
/// consumer).
@usableFromInline
internal enum _SelectionCallback<Selection> {
    /// With the previous selection (`nil` the first time) and the new one.
    case oldAndNew((Selection?, Selection) -> Void)
    /// With the new selection.
    case new((Selection) -> Void)
    /// With the previous and the new selection, when there is a previous
    /// one (from the second selection on, or always after a baseline).
    case previousAndNew((Selection, Selection) -> Void)

    @inlinable
    func callAsFunction(_ old: Selection?, _ new: Selection) {
        switch self {
        case .oldAndNew(let body): body(old, new)
        case .new(let body): body(new)
        case .previousAndNew(let body): if let old { body(old, new) }
        }
    }
}

/// A consumer of an `Equatable` selection: its selector, callback and last
/// selection, in the handle (see ``ConsumerHandle``).
@usableFromInline
internal final class _SelectionHandle<State, Selection: Equatable>: ConsumerHandle<State>, @unchecked Sendable {
    // NB: the fields' order packs them: the first, a `Bool`, fills the
    // base class's tail padding; the inspector is stored as its two parts
    // (as a struct its `Bool` would take a word of padding).
    @usableFromInline let mayHoldNodes: Bool
    @usableFromInline let selector: (State) -> Selection
    @usableFromInline let identity: ((Selection) -> _TrackingIdentity?)?
    @usableFromInline let callback: _SelectionCallback<Selection>
    /// The last selection; `nil` before the first evaluation (or the
    /// baseline given, e.g. `.some(nil)` for optional selections, so that a
    /// first `nil` selection is no change). Only the thread holding the
    /// consuming turn touches it.
    @exclusivity(unchecked) @usableFromInline var last: Selection?

    @inlinable
    init(id: Int, baseline: Selection?, selector: @escaping (State) -> Selection,
         callback: _SelectionCallback<Selection>, run: @escaping _ConsumerRun<State>) {
        let inspector = _SelectionInspector<Selection>()
        self.mayHoldNodes = inspector.mayHoldNodes
        self.selector = selector
        self.identity = inspector.identity
        self.callback = callback
        self.last = baseline
        super.init(id: id, run: run)
    }

    @inlinable
    var inspector: _SelectionInspector<Selection> {
        _SelectionInspector(mayHoldNodes: mayHoldNodes, identity: identity)
    }
}

/// A consumer with a `predict` function: its selector, callback, `predict`
/// and last selection, in the handle (see ``ConsumerHandle``).
@usableFromInline
internal final class _PredictedHandle<State, T>: ConsumerHandle<State>, @unchecked Sendable {
    // NB: packed as `_SelectionHandle`'s fields.
    @usableFromInline let mayHoldNodes: Bool
    @usableFromInline let selector: (State) -> T?
    @usableFromInline let identity: ((T?) -> _TrackingIdentity?)?
    @usableFromInline let callback: (T?, T?) -> Void
    @usableFromInline let predict: (T?, T?) -> Bool
    /// The last selection (`nil` before the first evaluation). Only the
    /// thread holding the consuming turn touches it.
    @exclusivity(unchecked) @usableFromInline var last: T? = nil

    @inlinable
    init(id: Int, selector: @escaping (State) -> T?, callback: @escaping (T?, T?) -> Void,
         predict: @escaping (T?, T?) -> Bool, run: @escaping _ConsumerRun<State>) {
        let inspector = _SelectionInspector<T?>()
        self.mayHoldNodes = inspector.mayHoldNodes
        self.selector = selector
        self.identity = inspector.identity
        self.callback = callback
        self.predict = predict
        super.init(id: id, run: run)
    }

    @inlinable
    var inspector: _SelectionInspector<T?> {
        _SelectionInspector(mayHoldNodes: mayHoldNodes, identity: identity)
    }
}

/// Runs `selector` on `state` with `recorder` installed and records the
/// selection's dependencies: the selector's reads, what `isSame(selection,
/// selection)` reads, and every versioned node the selection holds (see
/// `_SelectionTracking`). Returns the selection and whether the consumer
/// must run at every consume.
@inlinable
internal func _selectRecording<State, Selection>(
    _ state: State, _ selector: (State) -> Selection, _ recorder: _ReadRecorder,
    inspector: _SelectionInspector<Selection>, isSame: (Selection, Selection) -> Bool
) -> (Selection, mustRunAlways: Bool) {
    recorder.record {
        recorder.sawUntrackable = false
        let mark = _TrackingMark.now
        let selection = selector(state)
        // NB: comparing the selection with itself, still recording, records
        // whatever the comparison looks at; a selection that is not the same
        // as itself (NaN) changes at every consume, as the naive consumer
        // sees it.
        var mustRunAlways = !isSame(selection, selection) || recorder.sawUntrackable
        if !inspector.recordNodes(in: selection, since: mark, into: recorder) {
            mustRunAlways = true
        }
        return (selection, mustRunAlways)
    }
}

extension ConsumerHandle {
    /// A consumer of an `Equatable` selection: called with the previous and
    /// the new selection (per `callback`'s shape) when they are not `==`.
    @inlinable
    internal static func _selection<Selection: Equatable>(
        id: Int, baseline: Selection?, selector: @escaping (State) -> Selection,
        callback: _SelectionCallback<Selection>
    ) -> ConsumerHandle {
        _SelectionHandle(id: id, baseline: baseline, selector: selector, callback: callback, run: { handle, state, recorder, register in
            // NB: `run` is only ever given its own handle.
            let handle = unsafeDowncast(handle, to: _SelectionHandle<State, Selection>.self)
            let new: Selection
            var mustRunAlways = false
            if let recorder {
                (new, mustRunAlways) = _selectRecording(
                    state, handle.selector, recorder, inspector: handle.inspector, isSame: ==)
            } else {
                new = handle.selector(state)
            }
            let old = handle.last
            handle.last = new
            let changed = old.map { $0 != new } ?? true
            // NB: with nothing recorded (plain state) an unchanged
            // selection has nothing to register.
            if recorder == nil && !changed { return }
            if register(mustRunAlways, changed) { handle.callback(old, new) }
        })
    }

    /// A consumer of an `Equatable` selection called with the previous
    /// selection (`nil` the first time) and the new one.
    @inlinable
    internal static func _selection<Selection: Equatable>(
        id: Int, baseline: Selection?, selector: @escaping (State) -> Selection,
        callback: @escaping (Selection?, Selection) -> Void
    ) -> ConsumerHandle {
        _selection(id: id, baseline: baseline, selector: selector, callback: .oldAndNew(callback))
    }

    /// A consumer with a `predict` function (ReSwiftConsumer's
    /// `add(_:_:predict:)`): called when `predict(old, new)` returns `false`,
    /// i.e. when the two selections are not predicted to be the same.
    @inlinable
    internal static func _predicted<T>(
        id: Int, selector: @escaping (State) -> T?, callback: @escaping (T?, T?) -> Void,
        predict: @escaping (T?, T?) -> Bool
    ) -> ConsumerHandle {
        _PredictedHandle(id: id, selector: selector, callback: callback, predict: predict, run: { handle, state, recorder, register in
            // NB: `run` is only ever given its own handle.
            let handle = unsafeDowncast(handle, to: _PredictedHandle<State, T>.self)
            let new: T?
            var mustRunAlways = false
            if let recorder {
                // NB: as `==` for equatable selections: whatever `predict`
                // reads of a selection is a dependency.
                (new, mustRunAlways) = _selectRecording(
                    state, handle.selector, recorder, inspector: handle.inspector, isSame: handle.predict)
            } else {
                new = handle.selector(state)
            }
            let old = handle.last
            handle.last = new
            let changed = !handle.predict(old, new)
            // NB: with nothing recorded (plain state) an unchanged
            // selection has nothing to register.
            if recorder == nil && !changed { return }
            if register(mustRunAlways, changed) { handle.callback(old, new) }
        })
    }
}

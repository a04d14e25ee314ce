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
    // `_PredictedHandle`), and `run` is a closure made by the `add`
    // overloads, which are `@inlinable`: it is specialized for the concrete
    // state and selection types in the caller's module, where an overridden
    // method of a generic subclass would run unspecialized (metadata
    // lookups on every call). It captures nothing unless the selection is a
    // versioned node (then the reader of its identity). The stored
    // properties are `final`: accessed directly, not through (unspecialized,
    // retaining) accessors.
    //
    // NB: the fields are sized and ordered to pack (`id` in 32 bits beside
    // `registry`, the flags in the tail a subclass's first field cannot
    // use): a handle of a selection of up to 40 bytes is 160 bytes, a
    // jemalloc size class.

    /// See `id`.
    @exclusivity(unchecked) @usableFromInline internal final var _id: UInt32
    /// The number of the registry that holds this consumer (set by its
    /// `register`, before the handle is returned, and never changed): what
    /// tells another `StateConsumer`'s handle apart without reading `id`,
    /// which its own registry may be rewriting under its own lock.
    @exclusivity(unchecked) @usableFromInline internal final var registry: UInt32 = 0
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
    /// NB: 32 bits (wrapping), beside `isRemoved`: together one word.
    @exclusivity(unchecked) @usableFromInline internal final var evaluationCount: UInt32 = 0
    /// Set, under the owner's lock, when the consumer is removed.
    @exclusivity(unchecked) @usableFromInline internal final var isRemoved = false

    /// The consumer's position among its ``StateConsumer``'s registered
    /// consumers, removed ones included: callbacks run in increasing `id`
    /// order. Changed (under the owner's lock) only when the registry
    /// compacts, which keeps the order. Below 2^32 (the registry checks).
    @inlinable internal final var id: Int {
        get { Int(_id) }
        set { _id = UInt32(truncatingIfNeeded: newValue) }
    }

    @inlinable
    internal init(id: Int, run: @escaping _ConsumerRun<State>) {
        self._id = UInt32(truncatingIfNeeded: id)
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

/// A handle class's evaluation, for ``ConsumerHandle/_run(of:)``.
@usableFromInline
internal protocol _HandleEvaluation {
    associatedtype State
    /// The type the selection's inspector looks at.
    associatedtype Inspected
    /// One evaluation of `handle` (see ``ConsumerHandle/run``) with the
    /// selection's inspector.
    static func _run(
        _ handle: ConsumerHandle<State>, _ state: State, _ recorder: _ReadRecorder?,
        _ register: (_ mustRunAlways: Bool, _ changed: Bool) -> Bool, _ inspector: _SelectionInspector<Inspected>)
}

/// A consumer of an `Equatable` selection: its selector, last selection
/// and callback, in the handle (see ``ConsumerHandle``).
@usableFromInline
internal final class _SelectionHandle<State, Callback: _SelectionCallback>: ConsumerHandle<State>, _HandleEvaluation,
    @unchecked Sendable where Callback.Selection: Equatable {
    @usableFromInline typealias Selection = Callback.Selection
    @usableFromInline typealias Inspected = Selection
    @usableFromInline let selector: (State) -> Selection
    /// The last selection; `nil` before the first evaluation (or the
    /// baseline given, e.g. `.some(nil)` for optional selections, so that a
    /// first `nil` selection is no change). Only the thread holding the
    /// consuming turn touches it.
    @exclusivity(unchecked) @usableFromInline var last: Selection?
    @usableFromInline let callback: Callback

    @inlinable
    init(id: Int, baseline: Selection?, selector: @escaping (State) -> Selection,
         callback: Callback, run: @escaping _ConsumerRun<State>) {
        self.selector = selector
        self.last = baseline
        self.callback = callback
        super.init(id: id, run: run)
    }

    @inlinable @inline(__always)
    static func _run(
        _ handle: ConsumerHandle<State>, _ state: State, _ recorder: _ReadRecorder?,
        _ register: (_ mustRunAlways: Bool, _ changed: Bool) -> Bool, _ inspector: _SelectionInspector<Selection>
    ) {
        // NB: `run` is only ever given its own handle.
        let handle = unsafeDowncast(handle, to: _SelectionHandle.self)
        let new: Selection
        var mustRunAlways = false
        if let recorder {
            (new, mustRunAlways) = _selectRecording(state, handle.selector, recorder, inspector: inspector, isSame: ==)
        } else {
            new = handle.selector(state)
        }
        let old = handle.last
        handle.last = new
        let changed = old.map { $0 != new } ?? true
        // NB: with nothing recorded (plain state) an unchanged selection
        // has nothing to register.
        if recorder == nil && !changed { return }
        if register(mustRunAlways, changed) { handle.callback(old, new) }
    }
}

/// A consumer with a `predict` function: its selector, `predict`, last
/// selection and callback, in the handle (see ``ConsumerHandle``).
@usableFromInline
internal final class _PredictedHandle<State, T>: ConsumerHandle<State>, _HandleEvaluation, @unchecked Sendable {
    @usableFromInline typealias Inspected = T?
    @usableFromInline let selector: (State) -> T?
    @usableFromInline let predict: (T?, T?) -> Bool
    /// The last selection (`nil` before the first evaluation). Only the
    /// thread holding the consuming turn touches it.
    @exclusivity(unchecked) @usableFromInline var last: T? = nil
    @usableFromInline let callback: (T?, T?) -> Void

    @inlinable
    init(id: Int, selector: @escaping (State) -> T?, callback: @escaping (T?, T?) -> Void,
         predict: @escaping (T?, T?) -> Bool, run: @escaping _ConsumerRun<State>) {
        self.selector = selector
        self.predict = predict
        self.callback = callback
        super.init(id: id, run: run)
    }

    @inlinable @inline(__always)
    static func _run(
        _ handle: ConsumerHandle<State>, _ state: State, _ recorder: _ReadRecorder?,
        _ register: (_ mustRunAlways: Bool, _ changed: Bool) -> Bool, _ inspector: _SelectionInspector<T?>
    ) {
        // NB: `run` is only ever given its own handle.
        let handle = unsafeDowncast(handle, to: _PredictedHandle.self)
        let new: T?
        var mustRunAlways = false
        if let recorder {
            // NB: as `==` for equatable selections: whatever `predict`
            // reads of a selection is a dependency.
            (new, mustRunAlways) = _selectRecording(state, handle.selector, recorder, inspector: inspector, isSame: handle.predict)
        } else {
            new = handle.selector(state)
        }
        let old = handle.last
        handle.last = new
        let changed = !handle.predict(old, new)
        // NB: with nothing recorded (plain state) an unchanged selection
        // has nothing to register.
        if recorder == nil && !changed { return }
        if register(mustRunAlways, changed) { handle.callback(old, new) }
    }
}

/// Runs `selector` on `state` with `recorder` installed and records the
/// selection's dependencies: the selector's reads, what `isSame(selection,
/// selection)` reads, and every versioned node the selection holds (see
/// `_SelectionTracking`). Returns the selection and whether the consumer
/// must run at every consume.
@inlinable @inline(__always)
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
    /// The `run` of a consumer whose handle is a `Handle`: its evaluation
    /// with the selection's inspector, decided here, once per consumer, and
    /// held by the closure only when the selection is a versioned node (its
    /// identity reader; one allocation). Otherwise the closure captures
    /// nothing: the handle stores no inspector.
    @inlinable @inline(__always)
    internal static func _run<Handle: _HandleEvaluation>(of _: Handle.Type) -> _ConsumerRun<State>
    where Handle.State == State {
        let inspector = _SelectionInspector<Handle.Inspected>()
        if let identity = inspector.identity {
            return { Handle._run($0, $1, $2, $3, _SelectionInspector(mayHoldNodes: true, identity: identity)) }
        } else if inspector.mayHoldNodes {
            return { Handle._run($0, $1, $2, $3, _SelectionInspector(mayHoldNodes: true, identity: nil)) }
        } else {
            return { Handle._run($0, $1, $2, $3, _SelectionInspector(mayHoldNodes: false, identity: nil)) }
        }
    }

    /// A consumer of an `Equatable` selection: called through `callback`
    /// when the previous and the new selection are not `==`.
    @inlinable
    internal static func _selection<Callback: _SelectionCallback>(
        id: Int, baseline: Callback.Selection?, selector: @escaping (State) -> Callback.Selection,
        callback: Callback
    ) -> ConsumerHandle where Callback.Selection: Equatable {
        typealias Handle = _SelectionHandle<State, Callback>
        return Handle(id: id, baseline: baseline, selector: selector, callback: callback,
                      run: _run(of: Handle.self))
    }

    /// A consumer of an `Equatable` selection called with the previous
    /// selection (`nil` the first time) and the new one.
    @inlinable
    internal static func _selection<Selection: Equatable>(
        id: Int, baseline: Selection?, selector: @escaping (State) -> Selection,
        callback: @escaping (Selection?, Selection) -> Void
    ) -> ConsumerHandle {
        _selection(id: id, baseline: baseline, selector: selector, callback: _OldAndNewCallback(callback))
    }

    /// A consumer with a `predict` function (ReSwiftConsumer's
    /// `add(_:_:predict:)`): called when `predict(old, new)` returns `false`,
    /// i.e. when the two selections are not predicted to be the same.
    @inlinable
    internal static func _predicted<T>(
        id: Int, selector: @escaping (State) -> T?, callback: @escaping (T?, T?) -> Void,
        predict: @escaping (T?, T?) -> Bool
    ) -> ConsumerHandle {
        typealias Handle = _PredictedHandle<State, T>
        return Handle(id: id, selector: selector, callback: callback, predict: predict,
                      run: _run(of: Handle.self))
    }
}

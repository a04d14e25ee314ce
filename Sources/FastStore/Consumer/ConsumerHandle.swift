/// One consumer registered with a ``StateConsumer``: what `add` returns, and
/// what ``StateConsumer/remove(_:)`` and ``ConsumerBag`` take.
///
/// Handles compare by identity.
public final class ConsumerHandle<State>: Hashable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: the mutable fields are touched either under
    // the owning consumer's lock (`isRemoved`, `dependencies`) or only by
    // the thread that holds the consumer's consuming turn (the selection
    // state the closures capture). For the same reason they opt out of
    // dynamic exclusivity checks.
    //
    // NB: the selection logic is one closure built by the `add` overloads,
    // which are `@inlinable`: they are specialized for the concrete state and
    // selection types in the caller's module, where a generic subclass
    // method would run unspecialized (metadata lookups on every call).

    /// The registration sequence number within its ``StateConsumer``:
    /// callbacks run in increasing `id` order.
    @usableFromInline internal let id: Int
    /// One evaluation: runs the selector on a state (recording its
    /// dependencies into the recorder when given) and stores the selection,
    /// then calls `register(mustRunAlways, changed)`, which files the
    /// recorded dependencies under the owner's lock and returns whether the
    /// callback is due (the selection changed and the consumer is still
    /// registered), and then, if it is, the callback.
    ///
    /// NB: one closure rather than an evaluate / deliver pair: one context
    /// per consumer, and the change waiting for delivery lives in locals
    /// instead of the selection slot.
    @usableFromInline internal let run: (State, _ReadRecorder?, _ register: (_ mustRunAlways: Bool, _ changed: Bool) -> Bool) -> Void
    /// Set, under the owner's lock, when the consumer is removed.
    @exclusivity(unchecked) @usableFromInline internal var isRemoved = false
    /// What the selector read at its last evaluation (deduplicated), as
    /// registered in the owner's reader index. Guarded by the owner's lock.
    @exclusivity(unchecked) @usableFromInline internal var dependencies: [_Dependency] = []
    /// How many times the selector ran (white-box tests count skipped
    /// evaluations with it).
    @exclusivity(unchecked) @usableFromInline internal var evaluationCount = 0

    @inlinable
    internal init(id: Int, run: @escaping (State, _ReadRecorder?, _ register: (_ mustRunAlways: Bool, _ changed: Bool) -> Bool) -> Void) {
        self.id = id
        self.run = run
    }

    public static func == (lhs: ConsumerHandle, rhs: ConsumerHandle) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// ReSwiftConsumer's name for what `add` returns.
public typealias TypedConsumer<State> = ConsumerHandle<State>

/// The selection state of one consumer: its last selection.
@usableFromInline
internal final class _SelectionSlot<Selection> {
    /// The last selection; `nil` before the first evaluation (or the
    /// baseline given, e.g. `.some(nil)` for optional selections, so that a
    /// first `nil` selection is no change).
    @exclusivity(unchecked) @usableFromInline var last: Selection?

    @inlinable init(last: Selection?) { self.last = last }
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
    /// the new selection when they are not `==`.
    @inlinable
    internal static func _selection<Selection: Equatable>(
        id: Int, baseline: Selection?, selector: @escaping (State) -> Selection,
        callback: @escaping (Selection?, Selection) -> Void
    ) -> ConsumerHandle {
        let slot = _SelectionSlot<Selection>(last: baseline)
        let inspector = _SelectionInspector<Selection>()
        return ConsumerHandle(id: id, run: { state, recorder, register in
            let new: Selection
            var mustRunAlways = false
            if let recorder {
                (new, mustRunAlways) = _selectRecording(
                    state, selector, recorder, inspector: inspector, isSame: ==)
            } else {
                new = selector(state)
            }
            let old = slot.last
            slot.last = new
            let changed = old.map { $0 != new } ?? true
            // NB: with nothing recorded (plain state) an unchanged
            // selection has nothing to register.
            if recorder == nil && !changed { return }
            if register(mustRunAlways, changed) { callback(old, new) }
        })
    }

    /// A consumer with a `predict` function (ReSwiftConsumer's
    /// `add(_:_:predict:)`): called when `predict(old, new)` returns `false`,
    /// i.e. when the two selections are not predicted to be the same.
    @inlinable
    internal static func _predicted<T>(
        id: Int, selector: @escaping (State) -> T?, callback: @escaping (T?, T?) -> Void,
        predict: @escaping (T?, T?) -> Bool
    ) -> ConsumerHandle {
        let slot = _SelectionSlot<T?>(last: .some(nil))
        let inspector = _SelectionInspector<T?>()
        return ConsumerHandle(id: id, run: { state, recorder, register in
            let new: T?
            var mustRunAlways = false
            if let recorder {
                // NB: as `==` for equatable selections: whatever `predict`
                // reads of a selection is a dependency.
                (new, mustRunAlways) = _selectRecording(
                    state, selector, recorder, inspector: inspector, isSame: predict)
            } else {
                new = selector(state)
            }
            let old = slot.last ?? nil
            slot.last = .some(new)
            let changed = !predict(old, new)
            // NB: with nothing recorded (plain state) an unchanged
            // selection has nothing to register.
            if recorder == nil && !changed { return }
            if register(mustRunAlways, changed) { callback(old, new) }
        })
    }
}

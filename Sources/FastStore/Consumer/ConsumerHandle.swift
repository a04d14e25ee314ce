/// One consumer registered with a ``StateConsumer``: what `add` returns, and
/// what ``StateConsumer/remove(_:)`` and ``ConsumerBag`` take.
///
/// Handles compare by identity.
public class ConsumerHandle<State>: Hashable, @unchecked Sendable {
    // NB: not `open`: the selection and callback live in internal subclasses
    // (`_SelectionConsumer`, `_PredictConsumer`). `@unchecked Sendable`: the
    // mutable fields are touched either under the owning consumer's lock
    // (`isRemoved`, `dependencies`) or only by the thread that holds the
    // consumer's consuming turn (the selection state in subclasses).

    /// The registration sequence number within its ``StateConsumer``:
    /// callbacks run in increasing `id` order.
    @usableFromInline internal let id: Int
    /// Set, under the owner's lock, when the consumer is removed.
    @usableFromInline internal var isRemoved = false
    /// What the selector read at its last evaluation (deduplicated), as
    /// registered in the owner's reader index. Guarded by the owner's lock.
    @usableFromInline internal var dependencies: [_Dependency] = []
    /// How many times the selector ran (white-box tests count skipped
    /// evaluations with it).
    @usableFromInline internal var evaluationCount = 0

    @usableFromInline
    internal init(id: Int) { self.id = id }

    /// Runs the selector on `state` (recording its reads into `recorder`
    /// when given) and stores the selection. Returns whether the callback
    /// must be called (see ``_deliver()``).
    @usableFromInline
    internal func _evaluate(_ state: State, recorder: _ReadRecorder?) -> Bool {
        preconditionFailure("FastStore: ConsumerHandle is abstract")
    }

    /// Calls the callback with the selection change stored by the last
    /// `_evaluate` that returned `true`.
    @usableFromInline
    internal func _deliver() {
        preconditionFailure("FastStore: ConsumerHandle is abstract")
    }

    public static func == (lhs: ConsumerHandle, rhs: ConsumerHandle) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// ReSwiftConsumer's name for what `add` returns.
public typealias TypedConsumer<State> = ConsumerHandle<State>

/// A consumer of an `Equatable` selection: called when the selection is not
/// `==` to the previous one.
@usableFromInline
internal final class _SelectionConsumer<State, Selection: Equatable>: ConsumerHandle<State>, @unchecked Sendable {
    @usableFromInline let selector: (State) -> Selection
    @usableFromInline let callback: (Selection?, Selection) -> Void
    /// The last selection; `nil` before the first evaluation (or the
    /// baseline the caller gave, e.g. `.some(nil)` for optional selections,
    /// so that a first `nil` selection is no change).
    @usableFromInline var last: Selection?
    @usableFromInline var pendingOld: Selection?
    @usableFromInline var pendingNew: Selection?

    @usableFromInline
    init(id: Int, baseline: Selection?, selector: @escaping (State) -> Selection,
         callback: @escaping (Selection?, Selection) -> Void) {
        self.selector = selector
        self.callback = callback
        self.last = baseline
        super.init(id: id)
    }

    @usableFromInline
    override func _evaluate(_ state: State, recorder: _ReadRecorder?) -> Bool {
        evaluationCount &+= 1
        let new: Selection
        if let recorder {
            new = recorder.record {
                let selection = selector(state)
                // NB: comparing the selection with itself, still recording,
                // records whatever `==` can look at: a selection that is a
                // node (`{ $0.settings }`) was returned without being read
                // into, and this makes it a whole-node dependency.
                _ = selection == selection
                return selection
            }
        } else {
            new = selector(state)
        }
        let old = last
        last = new
        if let old, old == new { return false }
        pendingOld = old
        pendingNew = new
        return true
    }

    @usableFromInline
    override func _deliver() {
        guard let new = pendingNew else { return }
        let old = pendingOld
        pendingOld = nil
        pendingNew = nil
        callback(old, new)
    }
}

/// A consumer with a `predict` function (ReSwiftConsumer's
/// `add(_:_:predict:)`): called when `predict(old, new)` returns `false`,
/// i.e. when the two selections are not predicted to be the same.
@usableFromInline
internal final class _PredictConsumer<State, T>: ConsumerHandle<State>, @unchecked Sendable {
    @usableFromInline let selector: (State) -> T?
    @usableFromInline let callback: (T?, T?) -> Void
    @usableFromInline let predict: (T?, T?) -> Bool
    @usableFromInline var last: T?
    @usableFromInline var pending: (old: T?, new: T?)?

    @usableFromInline
    init(id: Int, selector: @escaping (State) -> T?, callback: @escaping (T?, T?) -> Void,
         predict: @escaping (T?, T?) -> Bool) {
        self.selector = selector
        self.callback = callback
        self.predict = predict
        super.init(id: id)
    }

    @usableFromInline
    override func _evaluate(_ state: State, recorder: _ReadRecorder?) -> Bool {
        evaluationCount &+= 1
        let new: T?
        if let recorder {
            new = recorder.record {
                let selection = selector(state)
                // NB: as `==` for equatable selections: whatever `predict`
                // reads of a selection is a dependency.
                _ = predict(selection, selection)
                return selection
            }
        } else {
            new = selector(state)
        }
        let old = last
        last = new
        if predict(old, new) { return false }
        pending = (old, new)
        return true
    }

    @usableFromInline
    override func _deliver() {
        guard let (old, new) = pending else { return }
        pending = nil
        callback(old, new)
    }
}

/// A stream of `(old, new)` state pairs from a ``Store`` to one subscriber,
/// which `Store.subscribe(_:transform:)` lets you narrow and filter:
///
/// ```swift
/// store.subscribe(self) { subscription in
///     subscription
///         .select { $0.counter }          // or .select(\.counter)
///         .skipRepeats()                  // Equatable selections
/// }
/// ```
///
/// `old` is the (selected) state before the dispatch, `nil` for the first
/// pair (the state delivered on subscribing). Each operator returns a new
/// subscription fed by this one; the subscription's pairs are delivered to
/// whoever set ``observer`` last.
public class Subscription<State> {

    /// Called with each `(old, new)` pair this subscription forwards. The
    /// operators (`select`, `skipRepeats`, ...) set it to feed the
    /// subscription they return; set it yourself to write an operator of
    /// your own.
    public var observer: ((State?, State) -> Void)? {
        didSet {
            // NB: only an operator's own observer leads to the stage it
            // made; one set by hand leads nowhere the facade can follow.
            _downstream = _installing
            _installing = nil
        }
    }

    /// The stage the current ``observer`` feeds, when an operator of this
    /// type installed it (see `Subscription+Tracking.swift`).
    weak var _downstream: AnyObject?
    private weak var _installing: AnyObject?
    /// Whether this is a store's own subscription, the head of a chain.
    let _isStoreSubscription: Bool
    /// Set on a `select` made straight from a store's subscription.
    var _storeSelection: _StoreSelection<State>?
    /// Set on the `skipRepeats()` stage of an `Equatable` selection that
    /// follows such a `select`: the facade tracks it.
    var _trackedSelection: _TrackedSelection?

    /// A store's own subscription.
    init() { _isStoreSubscription = true }

    /// A stage an operator makes.
    init(_stage: Void) { _isStoreSubscription = false }

    /// A subscription whose pairs are sent by `sink`: `sink` is called at
    /// once with a function that forwards a pair to this subscription's
    /// ``observer``. Keep that function (typically in another
    /// subscription's observer) to feed this one.
    public init(sink: @escaping (@escaping (State?, State) -> Void) -> Void) {
        _isStoreSubscription = false
        sink { [self] old, new in
            self.newValues(oldState: old, newState: new)
        }
    }

    /// Forwards a pair to the observer.
    func newValues(oldState: State?, newState: State) {
        observer?(oldState, newState)
    }

    /// A subscription fed from this one through `forward`, which gets each
    /// pair and the function that passes a pair on.
    private func _derived<Output>(
        _ forward: @escaping (_ old: State?, _ new: State, _ send: (Output?, Output) -> Void) -> Void
    ) -> Subscription<Output> {
        let derived = Subscription<Output>(_stage: ())
        _installing = derived
        observer = { [derived] old, new in
            forward(old, new) { derived.newValues(oldState: $0, newState: $1) }
        }
        return derived
    }

    // MARK: Selecting

    /// A subscription of the part of the state `selector` returns.
    public func select<Substate>(_ selector: @escaping (State) -> Substate) -> Subscription<Substate> {
        let derived = _derived { old, new, send in
            send(old.map(selector), selector(new))
        }
        if _isStoreSubscription { derived._storeSelection = _StoreSelection(from: self, selector) }
        return derived
    }

    /// A subscription of the part of the state at `keyPath`.
    public func select<Substate>(_ keyPath: KeyPath<State, Substate>) -> Subscription<Substate> {
        select { $0[keyPath: keyPath] }
    }

    // MARK: Filtering

    /// A subscription that drops a pair when `isRepeat(old, new)` is `true`.
    /// The first pair (no `old`) always passes.
    ///
    /// `old` is the state before the dispatch, not the last state passed on:
    /// each pair is judged on its own.
    public func skipRepeats(_ isRepeat: @escaping (_ oldState: State, _ newState: State) -> Bool)
        -> Subscription<State> {
        _derived { old, new, send in
            if let old, isRepeat(old, new) { return }
            send(old, new)
        }
    }

    /// The same as ``skipRepeats(_:)``.
    public func skip(when: @escaping (_ oldState: State, _ newState: State) -> Bool) -> Subscription<State> {
        skipRepeats(when)
    }

    /// A subscription that passes a pair on only when `when(old, new)` is
    /// `true` (the first pair always passes): the inverse of
    /// ``skip(when:)``.
    public func only(when: @escaping (_ oldState: State, _ newState: State) -> Bool) -> Subscription<State> {
        skipRepeats { !when($0, $1) }
    }
}

extension Subscription where State: Equatable {
    /// A subscription that drops a pair whose old and new states are `==`.
    public func skipRepeats() -> Subscription<State> {
        let stage = skipRepeats(==)
        if let selection = _storeSelection {
            stage._trackedSelection = _TrackedSelection(selection, selectStage: self, skipStage: stage)
        }
        return stage
    }
}

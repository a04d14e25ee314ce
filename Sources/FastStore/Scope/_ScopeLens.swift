import Atomics

/// What a ``ScopedStore`` does, for a scope whose root store's types are
/// erased: read the scope's state, dispatch into the root, subscribe
/// through the root's hub, and scope further.
internal protocol _ScopeLens<State, Action>: Sendable {
    associatedtype State
    associatedtype Action

    /// The scope's state in the root store's latest state.
    func read() -> State
    /// Dispatches `action`, embedded, to the root store.
    func dispatch(_ action: Action)
    /// Calls `body` with the scope's new state whenever it changes.
    func subscribe(on thread: NotificationThread, _ body: @escaping (State) -> Void) -> StoreSubscription
    /// The lens of a part of this scope.
    func scope<Child, ChildAction>(
        _ toChild: @escaping (State) -> Child,
        _ fromChildAction: @escaping (ChildAction) -> Action
    ) -> any _ScopeLens<Child, ChildAction>
}

/// A scope of a root store: the store, the state closure from the root
/// state, and the action closure into the root action, each composed over
/// every level of scoping, so a scope of a scope talks to the root
/// directly.
internal struct _RootLens<Root, RootAction, State, Action>: _ScopeLens, @unchecked Sendable {
    // NB: `@unchecked Sendable`: immutable; the closures are called from
    // any thread, as a store's reducer is.
    let store: Store<Root, RootAction>
    let get: (Root) -> State
    let embed: (Action) -> RootAction
    let comparison: any _ScopeComparison<State>

    init(store: Store<Root, RootAction>, get: @escaping (Root) -> State, embed: @escaping (Action) -> RootAction) {
        self.store = store
        self.get = get
        self.embed = embed
        self.comparison = _scopeComparison(for: State.self)
    }

    func read() -> State { _TrackingContext._withReadsUnobserved { get(store._unobservedState) } }

    func dispatch(_ action: Action) { store.dispatch(embed(action)) }

    func subscribe(on thread: NotificationThread, _ body: @escaping (State) -> Void) -> StoreSubscription {
        let hub = _ScopeHub<Root>.hub(for: store, on: thread)
        let delivery = _ScopeDelivery(comparison: comparison, body: body)
        let handle = comparison.add(to: hub.consumer, { [get] root in get(root) }, {
            [unowned consumer = hub.consumer] value in
            // NB: the callback runs in the hub consumer's turn, where its
            // current tag is the generation of the root state evaluated.
            delivery.deliver(value, generation: consumer._currentTag)
        })
        // NB: the baseline is read after registering, so every evaluation
        // the registration or the hub made before it is of a state published
        // no later than the baseline's (see `_ScopeDelivery`).
        let store = self.store
        delivery.setBaseline { [get] in
            let (root, generation) = store._stateAndGeneration
            return _TrackingContext._withReadsUnobserved { (get(root), generation) }
        }
        // NB: the token holds the hub: the subscription lasts as long as the
        // token, not as long as the scope that made it.
        return StoreSubscription { [hub] in hub.consumer.remove(handle) }
    }

    func scope<Child, ChildAction>(
        _ toChild: @escaping (State) -> Child,
        _ fromChildAction: @escaping (ChildAction) -> Action
    ) -> any _ScopeLens<Child, ChildAction> {
        _RootLens<Root, RootAction, Child, ChildAction>(
            store: store,
            get: { [get] in toChild(get($0)) },
            embed: { [embed] in embed(fromChildAction($0)) })
    }
}

/// One scope subscription's last delivered state, and the rule that
/// decides whether an evaluation is a change to deliver.
///
/// Evaluations are told apart by the root store's publication generation
/// of the state evaluated (the hub consumes tagged states), not by its root
/// stamp: a reducer that restores an earlier state (`state = saved`)
/// publishes a root at an older stamp, and that is a change like any other.
///
/// The baseline is the scope's state in the root state published when the
/// subscription was made, read after it was registered with the hub. An
/// evaluation of a state published no later than the baseline's (the
/// registration's own evaluation of the hub's last state, or a delivery
/// queued before the subscription) is not a change; every later one is
/// compared with the last delivered state. So a subscriber is called for
/// the changes after it subscribed, on the hub's thread, never on the
/// subscribing thread, and none is lost: when the baseline is read, the hub
/// consumer has evaluated nothing newer (a state is consumed after it is
/// published), and its selection has reached the baseline's state by the
/// time it evaluates anything newer.
///
/// NB: `@unchecked Sendable`: `last` and `lastGeneration` are guarded by
/// `lock`, which hands the baseline from the subscribing thread to the
/// thread holding the hub consumer's turn. `body` is called by that thread
/// only, outside the lock, so its calls are in order.
final class _ScopeDelivery<Value>: @unchecked Sendable {
    private let lock = _Lock()
    private var last: Value?
    /// The generation of the last state compared; `nil` until the baseline
    /// is set (evaluations before it are ignored).
    private var lastGeneration: UInt64?
    let comparison: any _ScopeComparison<Value>
    let body: (Value) -> Void

    init(comparison: any _ScopeComparison<Value>, body: @escaping (Value) -> Void) {
        self.comparison = comparison
        self.body = body
    }

    /// Sets the baseline: the value and the generation `read` returns, read
    /// under the lock, so that no evaluation is compared before it is set.
    func setBaseline(_ read: () -> (Value, UInt64)) {
        lock.lock()
        let (value, generation) = read()
        last = value
        lastGeneration = generation
        lock.unlock()
    }

    /// An evaluation of the root state published at `generation` found
    /// `new`: calls the subscriber when that is a change.
    func deliver(_ new: Value, generation: UInt64) {
        lock.lock()
        guard let known = lastGeneration, generation > known, let old = last else {
            lock.unlock()
            return
        }
        lastGeneration = generation
        if comparison.isSame(old, new) {
            lock.unlock()
            return
        }
        last = new
        lock.unlock()
        body(new)
    }
}

extension Store {
    /// The published state, read without registering an Observation access:
    /// what a consumer's first consume reads (a consumer is no Observation
    /// tracking, and a read outside any tracking would keep a look live in
    /// the Observation hub, which every publish would then consult).
    ///
    /// - Complexity: O(1): a lock and a copy of the state value.
    @usableFromInline
    internal var _unobservedState: State {
        _lock.lock()
        defer { _lock.unlock() }
        return _publishedUnderLock
    }

    /// The published state and its publication generation, read together
    /// without registering an Observation access.
    ///
    /// - Complexity: O(1): a lock and a copy of the state value.
    internal var _stateAndGeneration: (State, UInt64) {
        _lock.lock()
        defer { _lock.unlock() }
        return (_publishedUnderLock, _publication.generation.load(ordering: .relaxed))
    }
}

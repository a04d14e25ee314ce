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

    func read() -> State { get(store._unobservedState) }

    func dispatch(_ action: Action) { store.dispatch(embed(action)) }

    func subscribe(on thread: NotificationThread, _ body: @escaping (State) -> Void) -> StoreSubscription {
        let hub = _ScopeHub<Root>.hub(for: store, on: thread)
        let rootReader = _RootVersion.reader(for: Root.self)
        let root = store._unobservedState
        let delivery = _ScopeDelivery(
            baseline: get(root), baselineRoot: rootReader?(root), comparison: comparison, body: body)
        let handle = comparison.add(to: hub.consumer, { [get] root in
            delivery.evaluatedRoot = rootReader?(root)
            return get(root)
        }, delivery.deliver)
        delivery.armed.store(true, ordering: .releasing)
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
/// The hub's consumer keeps the last state it consumed and evaluates a new
/// subscription against it as it registers it (when no consume is under
/// way), which records what the `state` closures read. That evaluation,
/// and any other before the subscription is armed (right after it is
/// registered), sets the baseline silently: a subscriber is called for
/// changes after it subscribed, never on the subscribing thread. After
/// that, an evaluation of a root state no newer than the last one seen is
/// not a change (a delivery queued before the subscription); otherwise the
/// new state is compared with the last delivered one.
///
/// NB: `@unchecked Sendable`: `armed` is atomic; the rest is touched only
/// by the thread holding the hub consumer's consuming turn (the selector
/// sets `evaluatedRoot`, the callback reads it right after), and by the
/// subscribing thread before registration publishes it.
final class _ScopeDelivery<Value>: @unchecked Sendable {
    @exclusivity(unchecked) var last: Value
    @exclusivity(unchecked) var lastRoot: _RootVersion?
    @exclusivity(unchecked) var evaluatedRoot: _RootVersion?
    let armed = ManagedAtomic<Bool>(false)
    let comparison: any _ScopeComparison<Value>
    let body: (Value) -> Void

    init(baseline: Value, baselineRoot: _RootVersion?, comparison: any _ScopeComparison<Value>, body: @escaping (Value) -> Void) {
        last = baseline
        lastRoot = baselineRoot
        self.comparison = comparison
        self.body = body
    }

    func deliver(_ new: Value) {
        let evaluated = evaluatedRoot
        if let evaluated, let known = lastRoot, evaluated.node == known.node, evaluated.version <= known.version {
            return
        }
        lastRoot = evaluated
        guard armed.load(ordering: .acquiring) else {
            last = new
            return
        }
        if comparison.isSame(last, new) { return }
        last = new
        body(new)
    }
}

extension Store {
    /// The published state, read without registering an Observation access.
    ///
    /// - Complexity: O(1): a lock and a copy of the state value.
    internal var _unobservedState: State {
        _lock.lock()
        defer { _lock.unlock() }
        return _guarded.pointee.state
    }
}

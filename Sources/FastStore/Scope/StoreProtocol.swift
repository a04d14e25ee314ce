/// What a screen needs of a store, whether it is the app's ``Store`` or a
/// ``ScopedStore`` of one of its parts: the state, a way to dispatch, change
/// notifications, and scoping.
///
/// Write a view against `some StoreProtocol<RowState, RowAction>` and hand it
/// either a `Store` (a preview, a test) or `store.scope(…)` (the app).
public protocol StoreProtocol<State, Action>: AnyObject, Sendable {
    /// The state the store presents.
    associatedtype State
    /// The actions the store accepts.
    associatedtype Action

    /// The latest state.
    ///
    /// - Complexity: O(1) for a ``Store``; for a ``ScopedStore``, its
    ///   `state` closures applied to the root's latest state.
    var state: State { get }

    /// Dispatches an action (for a ``ScopedStore``: to the root store,
    /// embedded by the scope's `action` closures).
    ///
    /// - Complexity: amortized O(1) plus the root's reducer when this call
    ///   drains (see ``Store/dispatch(_:)``).
    func dispatch(_ action: Action)

    /// Calls `body` with the new state after batches of actions, until the
    /// returned subscription is cancelled or released: a ``Store`` after
    /// every batch, whether or not it changed the state; a ``ScopedStore``
    /// after every batch that changed the scope's state. Neither calls it
    /// with the current state on subscribing.
    ///
    /// - Complexity: O(1) to subscribe, plus O(subscribers) for a ``Store``.
    func subscribe(on thread: NotificationThread, _ body: @escaping (State) -> Void) -> StoreSubscription

    /// A store of a part of this store's state that accepts the part's own
    /// actions (see ``Store/scope(state:action:)``).
    ///
    /// - Complexity: O(1).
    func scope<ChildState, ChildAction>(
        state toChildState: @escaping (State) -> ChildState,
        action fromChildAction: @escaping (ChildAction) -> Action
    ) -> ScopedStore<ChildState, ChildAction>
}

extension StoreProtocol {
    /// Calls `body` with the new state after batches of actions, on the
    /// thread that drains them (see ``subscribe(on:_:)``), as `Store` and
    /// `ScopedStore` do by default.
    ///
    /// - Complexity: as ``subscribe(on:_:)``.
    public func subscribe(_ body: @escaping (State) -> Void) -> StoreSubscription {
        subscribe(on: .drainThread, body)
    }
}

extension Store: StoreProtocol {}

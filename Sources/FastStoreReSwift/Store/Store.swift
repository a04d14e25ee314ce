import Atomics
@_spi(Facade) import FastStore

/// ReSwift's `Store`, backed by FastStore's store.
///
/// ```swift
/// let store = Store<AppState>(reducer: appReducer, state: nil, middleware: [logger])
/// store.subscribe(self) { $0.select { $0.counter } }     // skipRepeats: Int is Equatable
/// store.dispatch(CounterAction.increase)
/// ```
///
/// ## Behaviour, as ReSwift documents it
/// - `dispatch` on the store's thread is synchronous: when it returns, the
///   action went through the middleware, was reduced, and every subscriber
///   was called.
/// - A new subscriber gets the current state at once (through its
///   subscription's operators).
/// - Subscribers are held weakly; subscribing one again replaces its
///   subscription.
/// - Every dispatch notifies every subscription (each decides with
///   `skipRepeats`, `skip(when:)`, `only(when:)` what to pass on).
///
/// ## Where it differs: re-entrant and concurrent dispatch
/// ReSwift stops the program when an action is dispatched while a reducer
/// runs (from the reducer, or from another thread). Here the action is
/// queued instead: FastStore's store reduces it after the current one, on
/// the thread already reducing, before that thread's `dispatch` returns.
/// The middleware of a queued action runs at once, on the dispatching
/// thread.
///
/// A dispatch from a subscriber is queued too (ReSwift runs it recursively,
/// in the middle of the notification): every subscriber gets the current
/// state first, then the new state is reduced and notified, before the
/// outer `dispatch` returns. A subscriber is never re-entered: a state that
/// reaches it while its `newState` runs (it dispatched from the state it
/// got on subscribing, say) is delivered right after that call returns.
///
/// Dispatching, subscribing and unsubscribing are safe from any thread.
/// Subscribers are called one at a time on the thread that reduces (or the
/// one subscribing, for the first state); a dispatch made while another
/// thread reduces returns at once, and that thread reduces it. Within a
/// dispatch, subscriptions of the form `select` + `skipRepeats()` of an
/// `Equatable` selection (tracked: run by the store's `StateConsumer`,
/// which on versioned state re-runs a selector only when a dispatch wrote
/// what it read) are called after the others, each group in subscription
/// order. A tracked selector must read only the state it is given: one that
/// also reads something else (`{ $0.todos[self.filter] }`) is not re-run
/// when that changes alone.
open class Store<State>: StoreType, @unchecked Sendable {
    // NB: `@unchecked Sendable`: the mutable fields are guarded by `lock`;
    // FastStore's store serializes the reducer and the notifications.

    public typealias DispatchCallback = (State) -> Void

    @available(*, deprecated, message: "Deprecated in favor of https://github.com/ReSwift/ReSwift-Thunk")
    public typealias ActionCreator = (_ state: State, _ store: Store) -> Action?

    @available(*, deprecated, message: "Deprecated in favor of https://github.com/ReSwift/ReSwift-Thunk")
    public typealias AsyncActionCreator = (
        _ state: State,
        _ store: Store,
        _ actionCreatorCallback: @escaping ((ActionCreator) -> Void)
    ) -> Void

    /// The engine: holds the state, queues and reduces the actions, and
    /// publishes each batch to `publish(_:)`. Created with the first state
    /// (at once when `init` is given one, otherwise by the first reduction,
    /// normally the `ReSwiftInit` that `init` dispatches): its state is
    /// `State`, not `State?`, so that a versioned state is tracked.
    @usableFromInline let coreReference = ManagedAtomicLazyReference<FastStore.Store<State, any Action>>()
    @usableFromInline let reducer: Reducer<State>

    /// Whether `Equatable` selections skip repeats without asking.
    @usableFromInline let subscriptionsAutomaticallySkipRepeats: Bool

    @usableFromInline let lock = _Lock()
    // Guarded by `lock`:
    @usableFromInline var _middleware: [Middleware<State>]
    @usableFromInline var _dispatchFunction: DispatchFunction!
    @usableFromInline var coreSubscription: StoreSubscription?
    /// Whether the first reduction (which creates the engine) is under way,
    /// and the actions that reached the reducer meanwhile.
    @usableFromInline var isCreatingCore = false
    @usableFromInline var actionsBeforeCore: [any Action] = []
    @usableFromInline var subscriptionList = _SubscriptionList<State>()
    /// The last state handed to the subscribers, and its number (states are
    /// numbered from 1 in publish order).
    @usableFromInline var published: State?
    @usableFromInline var publishedSequence: UInt64 = 0
    /// The consumer of the tracked selections (`Subscription+Tracking.swift`),
    /// connected to the engine once it exists; the connection is guarded
    /// by `lock`.
    @usableFromInline let trackedConsumer = StateConsumer<State>()
    @usableFromInline var trackedConnection: StoreSubscription?

    /// Creates a store. A `nil` state is built by the reducer: the store
    /// dispatches ``ReSwiftInit`` (through the middleware) before returning.
    ///
    /// - Parameters:
    ///   - reducer: Returns the new state for an action and the current state.
    ///   - state: The initial state, or `nil` to let the reducer build it.
    ///   - middleware: Runs, in order, before the reducer for every action.
    ///   - automaticallySkipsRepeats: Whether subscriptions whose selection is
    ///     `Equatable` skip states whose selection did not change.
    @inlinable
    public required init(
        reducer: @escaping Reducer<State>,
        state: State?,
        middleware: [Middleware<State>] = [],
        automaticallySkipsRepeats: Bool = true
    ) {
        // NB: `@inlinable`, as are the functions that make the engine and the
        // closures the engine and the middleware chain call (`_makeCore`,
        // `_makeDispatchFunction`, `_dispatchToCore`): made in the client's
        // module, they run specialized for its `State`; made here, the whole
        // engine ran unspecialized, a third of a dispatch in generic metadata
        // lookups.
        self.reducer = reducer
        subscriptionsAutomaticallySkipRepeats = automaticallySkipsRepeats
        _middleware = middleware
        published = state
        publishedSequence = state == nil ? 0 : 1
        _dispatchFunction = _makeDispatchFunction(middleware)
        _configureTrackedConsumer()
        if let state {
            let (core, subscription) = _makeCore(state: state)
            _install(core, subscription)
            _connectTrackedConsumer(core)
        } else {
            dispatch(ReSwiftInit())
        }
    }

    /// The current state: `nil` only while the ``ReSwiftInit`` of a store
    /// created without a state is under way (or if a middleware dropped it).
    ///
    /// - Complexity: O(1): a lock and a copy of the state value.
    public var state: State! {
        core?.state
    }

    /// The function `dispatch` calls: the middleware chain, ending in
    /// `_defaultDispatch(action:)`. Setting ``middleware`` rebuilds it.
    public var dispatchFunction: DispatchFunction! {
        get { lock.withLock { _dispatchFunction } }
        set { lock.withLock { _dispatchFunction = newValue } }
    }

    /// The middleware, in order. Setting it rebuilds ``dispatchFunction``.
    public var middleware: [Middleware<State>] {
        get { lock.withLock { _middleware } }
        set {
            let function = _makeDispatchFunction(newValue)
            lock.withLock {
                _middleware = newValue
                _dispatchFunction = function
            }
        }
    }

    @inlinable
    final func _makeDispatchFunction(_ middleware: [Middleware<State>]) -> DispatchFunction {
        // NB: every closure holds the store weakly: a middleware that keeps
        // `dispatch` or `next` (a thunk finishing later) does not keep the
        // store alive, and its actions are dropped once the store is gone.
        let end: DispatchFunction = { [weak self] action in
            guard let self else { return }
            // NB: a subclass may override `_defaultDispatch`; this class's
            // own goes straight to the engine, specialized.
            if type(of: self) == Store<State>.self {
                self._dispatchToCore(action)
            } else {
                self._defaultDispatch(action: action)
            }
        }
        let dispatch: DispatchFunction = { [weak self] action in
            self?.dispatch(action)
        }
        let getState: () -> State? = { [weak self] in
            return self?.core?.state
        }
        return middleware.reversed().reduce(end) { next, middleware in
            middleware(dispatch, getState)(next)
        }
    }

    // MARK: Dispatching

    /// Dispatches an action through the middleware to the reducer.
    ///
    /// When it returns, the action is reduced and the subscribers were
    /// notified, unless it was dispatched while the store was reducing (from
    /// a reducer, a subscriber, or another thread): then it is queued and
    /// reduced right after, by the thread reducing (see ``Store``).
    ///
    /// - Complexity: the middleware, then O(1) plus the reducer plus the
    ///   subscriptions' operators when this call reduces.
    open func dispatch(_ action: Action) {
        let function = lock.withLock { _dispatchFunction }
        function!(action)
    }

    /// The end of the middleware chain: hands the action to the engine.
    // swiftlint:disable:next identifier_name
    open func _defaultDispatch(action: Action) {
        _dispatchToCore(action)
    }

    /// Dispatches the action `actionCreatorProvider` returns for the current
    /// state, if any.
    @available(*, deprecated, message: "Deprecated in favor of https://github.com/ReSwift/ReSwift-Thunk")
    open func dispatch(_ actionCreatorProvider: @escaping ActionCreator) {
        if let action = actionCreatorProvider(state, self) {
            dispatch(action)
        }
    }

    /// Runs `asyncActionCreatorProvider`, and dispatches the action of the
    /// action creator it produces, whenever it produces one.
    @available(*, deprecated, message: "Deprecated in favor of https://github.com/ReSwift/ReSwift-Thunk")
    open func dispatch(_ asyncActionCreatorProvider: @escaping AsyncActionCreator) {
        dispatch(asyncActionCreatorProvider, callback: nil)
    }

    /// As `dispatch(_:)` with an async action creator, then calls `callback` with the state once
    /// the action is dispatched (reduced, unless it was queued behind a
    /// reduction under way on another thread).
    @available(*, deprecated, message: "Deprecated in favor of https://github.com/ReSwift/ReSwift-Thunk")
    open func dispatch(_ actionCreatorProvider: @escaping AsyncActionCreator, callback: DispatchCallback?) {
        actionCreatorProvider(state, self) { [self] actionCreator in
            guard let action = actionCreator(state, self) else { return }
            dispatch(action)
            callback?(state)
        }
    }

    // MARK: Subscribing

    /// Subscribes `subscriber` to the whole state. It is called with the
    /// current state at once, then after every dispatch. Held weakly.
    ///
    /// - Complexity: amortized O(1), plus delivering the current state.
    open func subscribe<S: StoreSubscriber>(_ subscriber: S) where S.StoreSubscriberStateType == State {
        subscribe(subscriber, transform: nil)
    }

    /// Subscribes `subscriber` through the subscription `transform` returns
    /// (`{ $0.select(\.counter).skipRepeats() }`). It is called with the
    /// current (selected) state at once, then whenever the subscription
    /// passes a state on. Held weakly; subscribing it again replaces its
    /// subscription.
    ///
    /// - Complexity: amortized O(1), plus delivering the current state.
    open func subscribe<SelectedState, S: StoreSubscriber>(
        _ subscriber: S, transform: ((Subscription<State>) -> Subscription<SelectedState>)?
    ) where S.StoreSubscriberStateType == SelectedState {
        let original = Subscription<State>()
        _subscribe(subscriber, originalSubscription: original, transformedSubscription: transform?(original))
    }

    /// Registers the box of a subscription, replacing any other of the same
    /// subscriber, and delivers the current state to it.
    func _subscribe<SelectedState, S: StoreSubscriber>(
        _ subscriber: S, originalSubscription: Subscription<State>,
        transformedSubscription: Subscription<SelectedState>?
    ) where S.StoreSubscriberStateType == SelectedState {
        let box = subscriptionBox(
            originalSubscription: originalSubscription,
            transformedSubscription: transformedSubscription,
            subscriber: subscriber)
        lock.lock()
        subscriptionList.insert(box)
        let current = published
        let sequence = publishedSequence
        lock.unlock()
        if box.tracked != nil {
            // NB: registered once listed, so that an `unsubscribe` from its
            // first `newState` finds it (`track` sees a box cancelled
            // meanwhile). On plain state the consumer evaluates a new
            // selector at once against the state it consumed last
            // (`consumeInstantly`); otherwise (versioned state, or a consume
            // under way) it gets the current state consumed: only the
            // selectors that have not seen it run (from a callback of
            // another tracked selection: once that callback returns).
            box.track(in: trackedConsumer) { [weak self] box in
                self?.lock.withLock { self?.subscriptionList.remove(box) }
            }
            if !box.hasDelivered.load(ordering: .relaxed), let core {
                trackedConsumer._consumeCurrentState(of: core)
            }
        } else if let current {
            box.deliver(current, sequence: sequence)
        }
    }

    /// Makes the box of a new subscription (a seam for tests).
    func subscriptionBox<T>(
        originalSubscription: Subscription<State>,
        transformedSubscription: Subscription<T>?,
        subscriber: AnyStoreSubscriber
    ) -> SubscriptionBox<State> {
        SubscriptionBox(
            originalSubscription: originalSubscription,
            transformedSubscription: transformedSubscription,
            subscriber: subscriber)
    }

    /// Stops notifying `subscriber`. Safe from a subscriber, and from any
    /// thread (a notification already under way on another thread finishes).
    ///
    /// - Complexity: amortized O(1).
    open func unsubscribe(_ subscriber: AnyStoreSubscriber) {
        lock.withLock {
            subscriptionList.remove(subscriber: subscriber)
        }
    }

    /// The subscriptions, in subscription order (a test hook; a subscription
    /// whose subscriber was deallocated is dropped at the next dispatch).
    var subscriptions: [SubscriptionBox<State>] {
        lock.withLock { subscriptionList.liveBoxes }
    }

    /// The number of subscriptions (a test hook, as ``subscriptions``).
    @_spi(Testing)
    public var _subscriptionCount: Int {
        subscriptions.count
    }

    /// Hands a state the engine published to every subscription. Runs on the
    /// thread that reduced, once per batch of actions.
    @usableFromInline
    final func publish(_ state: State) {
        lock.lock()
        publishedSequence += 1
        published = state
        let sequence = publishedSequence
        let boxes = subscriptionList.boxes
        lock.unlock()
        var gone: [SubscriptionBox<State>] = []
        for box in boxes where !box.isCancelled {
            if !box.deliver(state, sequence: sequence) {
                gone.append(box)
            }
        }
        // Subscriptions of deallocated subscribers are dropped.
        if !gone.isEmpty {
            lock.withLock {
                for box in gone { subscriptionList.remove(box) }
            }
        }
    }
}

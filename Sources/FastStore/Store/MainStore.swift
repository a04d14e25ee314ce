import Observation

/// A store for the state of a UI: isolated to the main actor, where its
/// state is read and its actions are reduced, and written in place.
///
/// ```swift
/// let store = MainStore(state: AppState(), reducer: appReducer(_:_:))
/// store.dispatch(.rollTheDice)        // on the main actor: reduced now
/// print(store.state.currentDice)
/// ```
///
/// ## What it promises, against ``Store``
/// - **Reads** of ``state`` happen on the main actor only. The compiler
///   checks `state`; a read that reaches the store another way (a
///   ``MiddlewareContext`` kept and read from a task; a consumer
///   connected while another thread consumes a state from elsewhere into
///   it, whose first read then runs on that thread) is a precondition
///   failure that says so. A ``Store``'s state may be read from any
///   thread.
/// - **Writes in place.** A ``Store`` keeps its published state apart from
///   the copy its drain reduces, so every write copies the path from the
///   written value to the root (the published state shares those nodes).
///   A `MainStore` has one copy: a reducer's write copies only the nodes
///   something else still holds (a value a consumer kept, a history
///   snapshot, a `let` of the state a view body has not let go of).
/// - **Dispatch** works from any thread. On the main thread it reduces the
///   action before it returns, as ``Store/dispatch(_:)`` does when no drain
///   runs: `state` reflects it when `dispatch` returns (after the actions
///   other threads queued before it, which it reduces first). From inside
///   the store's own reducer, middleware or subscribers it is queued and
///   reduced later in the same drain. From any other thread it is queued,
///   and a drain scheduled on the main queue reduces it, batched with
///   everything queued by then: one publish and one notification for the
///   batch. Actions are reduced in the order they were queued; an action
///   dispatched from another thread crosses to the main actor (`sending`).
/// - **Callbacks** (subscribers, and consumers connected with
///   `consumer.connect(to: store)`) run on the main thread, in the drain,
///   after the batch was published. As in any store's drain, a `state`
///   read there registers no Observation access: a
///   `withObservationTracking` started inside a callback is not told of
///   later changes.
/// - **A batch** is everything queued when the drain takes it. Inside one,
///   between two actions (in middleware, or code it calls), `state` is the
///   state reduced so far; while the reducer runs, reading it is a
///   precondition failure.
/// - **Observation**: reading `state` registers what the view reads, as on
///   a ``Store`` of the same state (per node on versioned state; see
///   <doc:SwiftUI>).
///
/// Use ``Store`` for state that several threads read, and for what a
/// `MainStore` does not offer yet: scopes, history, persistence, async
/// sequences and the Combine `ObservableObject` conformance. A thread that
/// dispatches faster than the main thread reduces keeps the main thread
/// draining until it pauses: the drain does not yet hand the main thread
/// back between batches.
///
/// - Complexity: a dispatch on the main thread costs the reducer, the
///   writes' lookup in the consumers' index of reads (O(writes + woken
///   consumers)), and what it tells Observation; a write copies a node
///   only when something besides the store holds it.
@MainActor
public final class MainStore<State, Action>: Observable {
    // NB: the engine is a `Store` in owned mode (see `Store+Owner.swift`),
    // so consumers, the wake-up hubs, Observation and the change log work
    // as on a `Store`. Nonisolated so that `dispatch` reaches it from any
    // thread; the engine's queue is guarded by its lock, and its state is
    // read on the main thread only (checked by the engine).
    @usableFromInline nonisolated(unsafe) let _engine: Store<State, Action>

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - state: The initial state.
    ///   - reducer: Applies one action to the state, in place.
    ///   - middleware: Runs, in order, before the reducer for every action.
    public init(
        state: State,
        reducer: @escaping Reducer<State, Action>,
        middleware: [Middleware<State, Action>] = []
    ) {
        _engine = Store(state: state, reducer: reducer, middleware: middleware, owned: true)
    }

    /// The state, with every action reduced so far on the main actor.
    ///
    /// Reading it registers an Observation access. A reducer or middleware
    /// of this store must not read it (read the state it is given):
    /// that is a precondition failure.
    ///
    /// - Complexity: O(1): a copy of the state value (its buffers are
    ///   shared, not copied).
    public var state: State { _engine.state }

    /// Dispatches an action, from any thread (see ``MainStore`` for when
    /// `state` reflects it).
    ///
    /// - Complexity: on the main thread, amortized O(1) plus the reducer and
    ///   the notification; elsewhere, amortized O(1) to queue it.
    @inlinable
    nonisolated public func dispatch(_ action: sending Action) {
        _engine.dispatch(action)
    }

    /// Dispatches an action (the hand-written store's spelling).
    @inlinable
    nonisolated public func dispatch(action: sending Action) {
        _engine.dispatch(action)
    }

    /// Dispatches several actions at once, from any thread: they are queued
    /// together, in order, and reduced as one batch with one notification
    /// when nothing else is queued before them.
    ///
    /// - Complexity: O(`actions.count`) plus, on the main thread, the
    ///   reducer.
    @inlinable
    nonisolated public func dispatch<S: Sequence>(contentsOf actions: sending S) where S.Element == Action {
        _engine.dispatch(contentsOf: actions)
    }

    /// Calls `body` with the new state after every batch of actions, on the
    /// main thread, until the returned subscription is cancelled or
    /// released (see ``Store/subscribe(on:_:)``: a batch that changed
    /// nothing is delivered too).
    ///
    /// - Complexity: O(subscribers), to copy the subscriber list.
    public func subscribe(_ body: @escaping (State) -> Void) -> StoreSubscription {
        _engine.subscribe(on: .drainThread, body)
    }

    /// Subscribes an object, held weakly (see
    /// ``Store/subscribe(_:on:)``); called on the main thread.
    public func subscribe<Subscriber: StoreSubscriber>(_ subscriber: Subscriber)
    where Subscriber.StoreSubscriberStateType == State {
        _engine.subscribe(subscriber, on: .drainThread)
    }

    /// Stops notifying `subscriber`. Safe during a notification.
    public func unsubscribe(_ subscriber: AnyObject) {
        _engine.unsubscribe(subscriber)
    }

    /// Waits until every action dispatched before this call, from any
    /// thread, has been reduced, published and notified.
    ///
    /// - Precondition: not called from inside this store's drain.
    public func flush() async {
        _usagePrecondition(
            !_TrackingContext.isDraining(ObjectIdentifier(_engine)),
            "FastStore: MainStore.flush() called from inside the store's own drain (reducer, middleware or subscriber, or another store's drain they started); it would wait for itself"
        )
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _engine._resumeWhenIdle(continuation)
        }
    }

    /// Blocks until every action dispatched before this call, from any
    /// thread, has been reduced, published and notified. On the main
    /// thread it reduces what other threads queued now (the drain scheduled
    /// for it then finds nothing to do); elsewhere it waits for the main
    /// thread's drain, so the main thread must not be waiting for the
    /// caller.
    ///
    /// - Precondition: not called from inside this store's drain.
    nonisolated public func waitUntilIdle() {
        _engine.waitUntilIdle()
    }
}

#if canImport(Dispatch)
import Dispatch
#endif
import Observation

/// A store: holds the state, reduces dispatched actions into it in order, and
/// notifies subscribers once per batch.
///
/// A drop-in for the store people write by hand:
///
/// ```swift
/// typealias AppStore = Store<AppState, AppAction>
/// let store = AppStore(state: AppState(currentDice: "⚀"), reducer: appReducer(_:_:))
/// store.dispatch(action: .rollTheDice)
/// print(store.state.currentDice)
/// ```
///
/// ## Threading
/// `dispatch` is safe from any thread or task. Actions go onto one serial
/// queue. A `dispatch` that finds no drain running drains the queue itself, on
/// the calling thread: it takes every queued action, reduces them in order on
/// one working copy of the state, publishes the new state once, then notifies
/// subscribers once for the whole batch; it repeats while actions keep
/// arriving and returns when the queue is empty.
///
/// So `state` reflects a dispatched action:
/// - when `dispatch` returns, if no drain was running when it was called
///   (the common case: one thread, outside any callback);
/// - later, in the same drain, if it was called from inside the drain
///   (reducer, middleware or subscriber: the action is queued behind the
///   others, never reduced re-entrantly, never a deadlock) or while another
///   thread was draining (that thread reduces it before it stops).
///
/// To wait for every action dispatched so far, `await store.flush()` (or
/// `waitUntilIdle()` from synchronous code outside the drain).
///
/// No action is lost and none is reduced twice, whatever the number of
/// threads: the queue and the drain flag change under one lock, and only the
/// thread that set the flag reduces.
///
/// ## Subscribers
/// Subscribers are called in subscription order, on the draining thread by
/// default, after the state is published (so `store.state` inside the call
/// returns at least the notified state). Ask for ``NotificationThread/main``
/// to be called on the main thread instead. Cancelling or releasing a
/// subscription, or deallocating an object subscriber, during a notification
/// is safe.
///
/// ## Observation
/// `Store` is `Observable`: `withObservationTracking { store.state }` sees
/// every published change. Where Combine exists it is also an
/// `ObservableObject`, usable as `@EnvironmentObject` / `@ObservedObject`.
public final class Store<State, Action>: @unchecked Sendable {
    // Guarded by `_lock`.
    @usableFromInline var _state: State
    @usableFromInline var _queue = _DispatchQueueState<Action>()
    @usableFromInline var _subscribers: [_Subscriber<State>] = []
    @usableFromInline var _nextSubscriberID: UInt64 = 0
    @usableFromInline let _lock = _Lock()

    // Owned by the draining thread (at most one at a time, see `_queue`).
    @usableFromInline var _working: State
    @usableFromInline var _batch: [Action] = []
    @usableFromInline let _journal = _WriteJournal()

    @usableFromInline let _reducer: Reducer<State, Action>
    @usableFromInline let _middleware: [Middleware<State, Action>]
    @usableFromInline let _rootVersion: ((State) -> _RootVersion)?
    let _registrar = ObservationRegistrar()

    #if canImport(Combine)
    /// Combine's change publisher, for SwiftUI's `ObservableObject` support.
    public let objectWillChange = ObservableObjectPublisher()
    #endif

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
        _state = state
        _working = state
        _reducer = reducer
        _middleware = middleware
        _rootVersion = _RootVersion.reader(for: State.self)
        _batch.reserveCapacity(64)
    }

    /// The latest published state.
    ///
    /// Reflects every action of every finished batch (see the threading notes
    /// on ``Store``). Reading it registers an Observation access.
    ///
    /// - Complexity: O(1): a lock and a copy of the state value (its buffers
    ///   are shared, not copied).
    public var state: State {
        _registrar.access(self, keyPath: \.state)
        _lock.lock()
        defer { _lock.unlock() }
        return _state
    }

    /// Dispatches an action. See ``Store`` for when `state` reflects it.
    ///
    /// - Complexity: amortized O(1) plus the reducer, when this call drains:
    ///   one lock to enqueue, one to take the batch, one to publish.
    @inlinable
    public func dispatch(_ action: Action) {
        _lock.lock()
        let mustDrain = _queue.enqueue(action)
        _lock.unlock()
        if mustDrain { _drain() }
    }

    /// Dispatches an action (the hand-written store's spelling).
    @inlinable
    public func dispatch(action: Action) {
        dispatch(action)
    }

    /// Waits until every action dispatched before this call has been reduced,
    /// published and notified (the queue is empty and no drain runs).
    ///
    /// Calling it from inside the drain (a reducer, middleware or subscriber)
    /// would wait for itself: that is a precondition failure.
    public func flush() async {
        precondition(
            _DrainMarker.current !== self,
            "FastStore: Store.flush() called from inside the store's own drain (reducer, middleware or subscriber); it would wait for itself"
        )
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _lock.lock()
            if _queue.isIdle {
                _lock.unlock()
                continuation.resume()
            } else {
                _queue.idleWaiters.append(continuation)
                _lock.unlock()
            }
        }
    }

    /// Blocks the calling thread until the queue is idle (see ``flush()``).
    ///
    /// - Precondition: not called from inside this store's drain.
    public func waitUntilIdle() {
        precondition(
            _DrainMarker.current !== self,
            "FastStore: Store.waitUntilIdle() called from inside the store's own drain (reducer, middleware or subscriber); it would wait for itself"
        )
        while true {
            _lock.lock()
            let idle = _queue.isIdle
            _lock.unlock()
            if idle { return }
            _yieldThread()
        }
    }

    /// Number of actions dispatched so far.
    public var dispatchedCount: UInt64 {
        _lock.withLock { _queue.enqueuedCount }
    }

    // MARK: - Drain

    /// Reduces batches until the queue is empty. Runs on one thread at a
    /// time: the one whose `enqueue` returned `true`.
    @usableFromInline
    func _drain() {
        let outerMarker = _DrainMarker.current
        _DrainMarker.current = self
        defer { _DrainMarker.current = outerMarker }

        while true {
            _lock.lock()
            if _queue.takePending(into: &_batch) == false {
                // Nothing left: the drain ends here, under the same lock that
                // `enqueue` checks, so no action can be stranded.
                let waiters = _queue.finishIfIdle()!
                _lock.unlock()
                for waiter in waiters { waiter.resume() }
                return
            }
            let before = _state
            _lock.unlock()

            _working = before
            let oldRoot = _rootVersion?(before)
            if oldRoot != nil {
                _journal.reset()
                _journal.record { _reduceBatch() }
            } else {
                _reduceBatch()
            }
            _batch.removeAll(keepingCapacity: true)
            _publish(_working, changes: oldRoot.map { old in
                _DrainChanges(writes: _journal.writes, oldRoot: old, newRoot: _rootVersion!(_working))
            })
        }
    }

    @inlinable
    func _reduceBatch() {
        if _middleware.isEmpty {
            for action in _batch { _reducer(&_working, action) }
        } else {
            let context = MiddlewareContext(store: self)
            for action in _batch { _runChain(0, action, context) }
        }
    }

    @usableFromInline
    func _runChain(_ index: Int, _ action: Action, _ context: MiddlewareContext<State, Action>) {
        if index == _middleware.count {
            _reducer(&_working, action)
        } else {
            _middleware[index].body(context, action) { next in
                self._runChain(index + 1, next, context)
            }
        }
    }

    /// The state middleware sees: the working state inside this store's drain,
    /// the published state elsewhere.
    @usableFromInline
    var _middlewareState: State {
        _DrainMarker.current === self ? _working : state
    }

    @usableFromInline
    func _publish(_ newState: State, changes: _DrainChanges?) {
        _willChange()
        _registrar.withMutation(of: self, keyPath: \.state) {
            _lock.lock()
            _state = newState
            _lock.unlock()
        }
        _lock.lock()
        let subscribers = _subscribers
        _lock.unlock()
        if subscribers.isEmpty { return }
        if let changes {
            changes.installed { _notify(subscribers, newState) }
        } else {
            _notify(subscribers, newState)
        }
    }

    @usableFromInline
    func _notify(_ subscribers: [_Subscriber<State>], _ newState: State) {
        var sawGone = false
        for subscriber in subscribers where !subscriber.cancelled.load(ordering: .acquiring) {
            switch subscriber.thread {
            case .drainThread:
                if !subscriber.deliver(newState) { sawGone = true }
            case .main:
                _deliverOnMain(subscriber, newState)
            }
        }
        if sawGone { _removeGoneSubscribers() }
    }

    // MARK: - Subscribing

    /// Calls `body` with the new state after every batch that changes it,
    /// until the returned subscription is cancelled or released.
    ///
    /// The current state is not delivered on subscribing: read ``state``.
    ///
    /// - Parameters:
    ///   - thread: Where `body` runs (default: the draining thread).
    ///   - body: The subscriber.
    /// - Returns: The subscription. Keep it: releasing it unsubscribes.
    /// - Complexity: O(subscribers), to copy the subscriber list.
    public func subscribe(
        on thread: NotificationThread = .drainThread,
        _ body: @escaping (State) -> Void
    ) -> StoreSubscription {
        let entry = _addSubscriber(thread: thread, object: nil) { state in
            body(state)
            return true
        }
        return StoreSubscription { [weak self] in
            entry.cancelled.store(true, ordering: .releasing)
            self?._removeSubscriber(id: entry.id)
        }
    }

    /// Subscribes an object; the store holds it weakly, and stops calling it
    /// once it is deallocated or passed to ``unsubscribe(_:)``.
    ///
    /// Subscribing an object that is already subscribed does nothing.
    public func subscribe<Subscriber: StoreSubscriber>(
        _ subscriber: Subscriber,
        on thread: NotificationThread = .drainThread
    ) where Subscriber.StoreSubscriberStateType == State {
        _lock.lock()
        let already = _subscribers.contains { $0.object === subscriber && !$0.cancelled.load(ordering: .relaxed) }
        _lock.unlock()
        if already { return }
        _ = _addSubscriber(thread: thread, object: subscriber) { [weak subscriber] state in
            guard let subscriber else { return false }
            subscriber.newState(state: state)
            return true
        }
    }

    /// Stops notifying `subscriber`. Safe during a notification.
    public func unsubscribe(_ subscriber: AnyObject) {
        _lock.lock()
        var kept: [_Subscriber<State>] = []
        kept.reserveCapacity(_subscribers.count)
        for entry in _subscribers {
            if entry.isObjectSubscriber && entry.object === subscriber {
                entry.cancelled.store(true, ordering: .releasing)
            } else {
                kept.append(entry)
            }
        }
        _subscribers = kept
        _lock.unlock()
    }

    /// Number of live subscriptions.
    public var subscriberCount: Int {
        _lock.withLock {
            _subscribers.count { !$0.cancelled.load(ordering: .relaxed) && (!$0.isObjectSubscriber || $0.object != nil) }
        }
    }

    func _addSubscriber(thread: NotificationThread, object: AnyObject?, deliver: @escaping (State) -> Bool) -> _Subscriber<State> {
        _lock.lock()
        defer { _lock.unlock() }
        _nextSubscriberID &+= 1
        let entry = _Subscriber<State>(id: _nextSubscriberID, thread: thread, object: object, deliver: deliver)
        // NB: replace the array rather than append in place when a drain may
        // be iterating a snapshot of it; `append` on a shared buffer copies
        // anyway, so this costs nothing extra.
        _subscribers.append(entry)
        return entry
    }

    func _removeSubscriber(id: UInt64) {
        _lock.lock()
        _subscribers.removeAll { $0.id == id }
        _lock.unlock()
    }

    func _removeGoneSubscribers() {
        _lock.lock()
        _subscribers.removeAll { $0.isObjectSubscriber && $0.object == nil }
        _lock.unlock()
    }

    func _deliverOnMain(_ subscriber: _Subscriber<State>, _ newState: State) {
        #if canImport(Dispatch)
        subscriber.mainLock.lock()
        subscriber.mainPending = newState
        let schedule = !subscriber.mainScheduled
        subscriber.mainScheduled = true
        subscriber.mainLock.unlock()
        guard schedule else { return }
        let box = _UncheckedSendable((self, subscriber))
        DispatchQueue.main.async {
            let (store, subscriber) = box.value
            subscriber.mainLock.lock()
            let state = subscriber.mainPending
            subscriber.mainPending = nil
            subscriber.mainScheduled = false
            subscriber.mainLock.unlock()
            guard let state, !subscriber.cancelled.load(ordering: .acquiring) else { return }
            if !subscriber.deliver(state) { store._removeGoneSubscribers() }
        }
        #else
        _ = subscriber.deliver(newState)
        #endif
    }
}

/// The store whose drain runs on the calling thread, if any.
@usableFromInline
internal enum _DrainMarker {
    @usableFromInline static let _slot = _ThreadLocal<AnyObject>()
    @inlinable static var current: AnyObject? {
        get { _slot.value }
        set { _slot.value = newValue }
    }
}

@usableFromInline
internal struct _UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline let value: Value
    @inlinable init(_ value: Value) { self.value = value }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@usableFromInline
internal func _yieldThread() {
    sched_yield()
}

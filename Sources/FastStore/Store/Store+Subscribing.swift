#if canImport(Dispatch)
import Dispatch
#endif

// Subscribing to a store: closures, objects held weakly, and delivery on
// the main queue.

extension Store {

    /// Calls `body` with the new state after every batch of actions, until
    /// the returned subscription is cancelled or released. The store does
    /// not compare states: a batch that changed nothing is delivered too
    /// (compare in `body`, or use a ``StateConsumer`` or ``values(_:)``,
    /// which run only on a change).
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
        }!
        let store = _UncheckedWeak(self)
        return StoreSubscription {
            entry.cancelled.store(true, ordering: .releasing)
            store.object?._removeSubscriber(id: entry.id)
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
        _addSubscriber(thread: thread, object: subscriber) { [weak subscriber] state in
            guard let subscriber else { return false }
            subscriber.newState(state: state)
            return true
        }
    }

    /// Stops notifying `subscriber`. Safe during a notification.
    public func unsubscribe(_ subscriber: AnyObject) {
        _lock.lock()
        var kept: [_Subscriber<State>] = []
        kept.reserveCapacity(_guarded.pointee.subscribers.count)
        for entry in _guarded.pointee.subscribers {
            if entry.isObjectSubscriber && entry.object === subscriber {
                entry.cancelled.store(true, ordering: .releasing)
            } else {
                kept.append(entry)
            }
        }
        _guarded.pointee.subscribers = kept
        _lock.unlock()
    }

    /// Number of live subscriptions.
    public var subscriberCount: Int {
        _lock.withLock {
            _guarded.pointee.subscribers.count { !$0.cancelled.load(ordering: .relaxed) && (!$0.isObjectSubscriber || $0.object != nil) }
        }
    }

    /// Registers a subscriber. For an object subscriber that is already
    /// subscribed, registers nothing and returns `nil`: the check and the
    /// insertion share one critical section, so two threads subscribing the
    /// same object cannot both add it.
    @discardableResult
    func _addSubscriber(
        thread: NotificationThread, object: AnyObject?, wakeUps: _HubOwner<State>? = nil,
        deliver: @escaping (State) -> Bool
    ) -> _Subscriber<State>? {
        _lock.lock()
        defer { _lock.unlock() }
        if let object, _guarded.pointee.subscribers.contains(where: {
            $0.object === object && !$0.cancelled.load(ordering: .relaxed)
        }) {
            return nil
        }
        _guarded.pointee.nextSubscriberID &+= 1
        let entry = _Subscriber<State>(
            id: _guarded.pointee.nextSubscriberID, thread: thread, object: object, wakeUps: wakeUps, deliver: deliver)
        // NB: a drain iterating a snapshot of the list keeps its own
        // reference, so this append copies the buffer then and only then.
        _guarded.pointee.subscribers.append(entry)
        return entry
    }

    func _removeSubscriber(id: UInt64) {
        // NB: the entry is released after the lock: its closure may hold
        // the last reference to an object whose `deinit` calls the store
        // (a wake-up hub's `_HubOwner`).
        var removed: [_Subscriber<State>] = []
        _lock.lock()
        _guarded.pointee.subscribers.removeAll { subscriber in
            guard subscriber.id == id else { return false }
            removed.append(subscriber)
            return true
        }
        _lock.unlock()
        withExtendedLifetime(removed) {}
    }

    @usableFromInline
    func _removeGoneSubscribers() {
        _lock.lock()
        _guarded.pointee.subscribers.removeAll { $0.isObjectSubscriber && $0.object == nil }
        _lock.unlock()
    }

    @usableFromInline
    func _deliverOnMain(_ subscriber: _Subscriber<State>, _ newState: State) {
        #if canImport(Dispatch)
        subscriber.mainLock.lock()
        // NB: states that pile up while a delivery is pending are coalesced:
        // the subscriber gets the latest. A StateConsumer fed this way finds
        // the writes of every drain it skipped in the change log.
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

import Atomics
#if canImport(Dispatch)
import Dispatch
#endif

// Changes with their cause: receivers of a store's states that also get the
// actions reduced into them.
//
// NB: the drain keeps a reduced batch aside (a swap) until its subscribers
// were told, and copies it, with its first action, only when
// `_causeReceivers` is not zero: with no receiver of causes a batch costs one
// more atomic load. The count is read after the publish's critical section,
// and a receiver counts itself before it joins the subscriber list under the
// same lock, so a receiver in a publish's snapshot is always counted by the
// load that follows: it never gets a batch whose actions were not copied.

extension Store {
    /// Calls `body` with the new state and the actions that produced it after
    /// every batch, until the returned subscription is cancelled or released.
    ///
    /// On the draining thread, each call carries one batch's actions, in
    /// dispatch order. On ``NotificationThread/main``, where states that pile
    /// up while a delivery is pending are coalesced, a call carries the
    /// actions of every batch since the previous call, in order. The current
    /// state is not delivered on subscribing: read ``state``.
    ///
    /// ```swift
    /// let log = store.subscribeChanges { change in
    ///     print(change.actions, "→", change.state)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - thread: Where `body` runs (default: the draining thread).
    ///   - body: The subscriber.
    /// - Returns: The subscription. Keep it: releasing it unsubscribes.
    /// - Complexity: O(subscribers) to subscribe. While any receiver of
    ///   causes is registered, each batch copies its actions once (O(batch
    ///   size)), shared by every receiver; with none, nothing is copied.
    public func subscribeChanges(
        on thread: NotificationThread = .drainThread,
        _ body: @escaping (StoreChange<State, Action>) -> Void
    ) -> StoreSubscription {
        let owned = _owned
        let relay: _MainChangeRelay<State, Action>?
        let deliver: (State) -> Bool
        switch thread {
        case .drainThread:
            relay = nil
            deliver = { state in
                body(StoreChange(state: state, actions: _causes(of: owned)))
                return true
            }
        case .main:
            let mainRelay = _MainChangeRelay<State, Action>(body)
            relay = mainRelay
            deliver = { state in
                mainRelay.offer(state, _causes(of: owned))
                return true
            }
        }
        _causeReceivers.wrappingIncrement(ordering: .relaxed)
        let entry = _addSubscriber(thread: .drainThread, object: nil, deliver: deliver)!
        let store = _UncheckedWeak(self)
        return StoreSubscription {
            entry.cancelled.store(true, ordering: .releasing)
            relay?.cancel()
            guard let store = store.object else { return }
            store._removeSubscriber(id: entry.id)
            store._causeReceivers.wrappingDecrement(ordering: .releasing)
        }
    }

    /// Notifies `subscribers` with the batch's actions copied for the
    /// receivers of causes among them. Runs on the draining thread.
    @inlinable
    func _notifyWithCauses(_ subscribers: [_Subscriber<State>], changes: _DrainChanges?, first: Action?) {
        var actions: [Action] = []
        actions.reserveCapacity(_owned.pointee.reducedBatch.count + 1)
        if let first { actions.append(first) }
        actions.append(contentsOf: _owned.pointee.reducedBatch)
        _owned.pointee.causes = actions
        _owned.pointee.causeCopies &+= 1
        _notify(subscribers, _owned.pointee.working, changes: changes)
        _owned.pointee.causes = nil
    }

    /// Registers a drain-thread subscriber and reads the published state in
    /// the same critical section: every later publish is delivered to it,
    /// no earlier one is.
    ///
    /// - Parameter countsAsCauseReceiver: Whether the subscriber reads the
    ///   batches' actions (`_causes(of:)`); it is counted before it joins.
    func _addSubscriberReadingState(
        countsAsCauseReceiver: Bool, deliver: @escaping (State) -> Bool
    ) -> (_Subscriber<State>, State) {
        let (entry, state, _) = _addSubscriberReadingStateAndGeneration(countsAsCauseReceiver: countsAsCauseReceiver, deliver: deliver)
        return (entry, state)
    }

    /// ``_addSubscriberReadingState(countsAsCauseReceiver:deliver:)``, also
    /// returning the state's generation (read with it, under the lock).
    func _addSubscriberReadingStateAndGeneration(
        countsAsCauseReceiver: Bool, deliver: @escaping (State) -> Bool
    ) -> (_Subscriber<State>, State, UInt64) {
        if countsAsCauseReceiver { _causeReceivers.wrappingIncrement(ordering: .relaxed) }
        _lock.lock()
        defer { _lock.unlock() }
        _guarded.pointee.nextSubscriberID &+= 1
        let entry = _Subscriber<State>(
            id: _guarded.pointee.nextSubscriberID, thread: .drainThread, object: nil, deliver: deliver)
        _guarded.pointee.subscribers.append(entry)
        return (entry, _publishedUnderLock, _publication.generation.load(ordering: .relaxed))
    }

    /// Stops delivering to `entry` and removes it; uncounts a receiver of
    /// causes.
    func _removeSequenceSubscriber(_ entry: _Subscriber<State>, countsAsCauseReceiver: Bool) {
        entry.cancelled.store(true, ordering: .releasing)
        _removeSubscriber(id: entry.id)
        if countsAsCauseReceiver { _causeReceivers.wrappingDecrement(ordering: .releasing) }
    }
}

/// The actions of the batch being notified, read by a receiver of causes
/// on the draining thread, inside `_notifyWithCauses`.
///
/// NB: a pointer to the drain-owned part, not the store: a subscriber
/// closure holding the store would keep it alive. The store calls its
/// subscribers only while it lives.
@usableFromInline
internal func _causes<State, Action>(of owned: UnsafeMutablePointer<_StoreDrainOwned<State, Action>>) -> [Action] {
    let causes = owned.pointee.causes
    assert(causes != nil, "FastStore: internal error: a receiver of causes was notified of a batch whose actions were not copied")
    return causes ?? []
}

extension _StoreDrainOwned {
    /// Moves the reduced batch aside, leaving the (empty) buffer of the
    /// previous one for the next batch.
    ///
    /// - Complexity: O(1).
    @inlinable
    mutating func setBatchAside() {
        swap(&batch, &reducedBatch)
    }
}

/// Delivers a change subscriber's changes on the main queue, coalescing
/// those that pile up while a delivery is pending: the latest state with
/// the actions of every batch since the previous delivery, in order.
@usableFromInline
internal final class _MainChangeRelay<State, Action>: @unchecked Sendable {
    private let lock = _Lock()
    /// Guarded by `lock`: the change waiting for the main queue.
    private var pending: StoreChange<State, Action>?
    /// Guarded by `lock`: whether a delivery is scheduled.
    private var scheduled = false
    private let cancelled = ManagedAtomic<Bool>(false)
    private let body: (StoreChange<State, Action>) -> Void

    init(_ body: @escaping (StoreChange<State, Action>) -> Void) {
        self.body = body
    }

    /// Adds a batch's state and actions. Runs on the draining thread.
    func offer(_ state: State, _ actions: [Action]) {
        lock.lock()
        if pending == nil {
            pending = StoreChange(state: state, actions: actions)
        } else {
            pending!.state = state
            pending!.actions.append(contentsOf: actions)
        }
        let schedule = !scheduled
        scheduled = true
        lock.unlock()
        guard schedule else { return }
        #if canImport(Dispatch)
        DispatchQueue.main.async { self.deliver() }
        #else
        deliver()
        #endif
    }

    /// Hands the pending change to the subscriber. Runs on the main queue.
    private func deliver() {
        lock.lock()
        let change = pending
        pending = nil
        scheduled = false
        lock.unlock()
        guard let change, !cancelled.load(ordering: .acquiring) else { return }
        body(change)
    }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
        lock.lock()
        pending = nil
        lock.unlock()
    }
}

@_spi(Testing)
extension Store {
    /// How many batches copied their actions for receivers of causes (test
    /// hook; read when no drain runs, e.g. after ``flush()``).
    public var _causeCopyCount: Int { _owned.pointee.causeCopies }

    /// How many receivers of causes are registered (test hook).
    public var _causeReceiverCount: Int { _causeReceivers.load(ordering: .acquiring) }
}

// What the FastStorePersistence product needs of a store, at package access
// (no public API): a subscription that starts from a known state.

extension Store {
    /// Registers `body` for every batch published from now on, on the
    /// draining thread, and returns the published state read in the same
    /// critical section as the registration: every batch published after
    /// that state is delivered to `body`, and none before it.
    ///
    /// `body` may run before this returns (a batch published just after the
    /// registration): a caller that must see the returned state first holds
    /// its own lock around this call and takes it in `body`.
    ///
    /// - Complexity: O(subscribers), to copy the subscriber list.
    package func _subscribeFromCurrentState(_ body: @escaping (State) -> Void) -> (StoreSubscription, State) {
        let (entry, state) = _addSubscriberReadingState(countsAsCauseReceiver: false) { state in
            body(state)
            return true
        }
        let store = _UncheckedWeak(self)
        let subscription = StoreSubscription {
            entry.cancelled.store(true, ordering: .releasing)
            store.object?._removeSubscriber(id: entry.id)
        }
        return (subscription, state)
    }
}

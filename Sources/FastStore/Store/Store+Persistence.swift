// What the FastStorePersistence product needs of a store, at package access
// (no public API): a subscription that starts from a known state.

extension Store {
    /// Registers `body` for every batch published from now on, on the
    /// draining thread, with the batch's generation, and returns the
    /// published state and its generation, read in the same critical section
    /// as the registration: every batch published after that state is
    /// delivered to `body`, and none before it.
    ///
    /// A generation numbers a publication of the store (each batch, each
    /// history move): what lets two subscribers tell whether they saw the
    /// same publications (`_generationBeingNotified`).
    ///
    /// `body` may run before this returns (a batch published just after the
    /// registration): a caller that must see the returned state first holds
    /// its own lock around this call and takes it in `body`.
    ///
    /// The subscription holds neither the store nor `body`: `body` may hold
    /// the subscription.
    ///
    /// - Complexity: O(subscribers), to copy the subscriber list.
    package func _subscribeFromCurrentState(_ body: @escaping (State, UInt64) -> Void) -> (StoreSubscription, State, UInt64) {
        let publication = _publication
        let (entry, state, generation) = _addSubscriberReadingStateAndGeneration(countsAsCauseReceiver: false) { state in
            body(state, publication.generation.load(ordering: .relaxed))
            return true
        }
        let store = _UncheckedWeak(self)
        // NB: the entry held weakly, as the store: `body` may hold the
        // subscription's owner (a `PersistentState` lives as long as the
        // store it saves), which holds the subscription; holding the entry
        // here would make a cycle that outlives the store.
        let weakEntry = _UncheckedWeak(entry)
        let id = entry.id
        let subscription = StoreSubscription {
            weakEntry.object?.cancelled.store(true, ordering: .releasing)
            store.object?._removeSubscriber(id: id)
        }
        return (subscription, state, generation)
    }

    /// The generation of the published state: in a subscriber, on the
    /// draining thread, the generation of the batch being notified (no
    /// publish runs until the notification ends).
    package var _generationBeingNotified: UInt64 { _publication.generation.load(ordering: .relaxed) }
}

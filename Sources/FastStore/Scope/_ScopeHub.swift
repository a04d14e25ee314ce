/// The one consumer through which every scope of a root store, at any
/// depth, is notified: a ``StateConsumer`` of the root state, connected to
/// the root store once, holding one consumer per scope subscription.
///
/// So a drain costs the scopes what it costs a consumer: the consumer finds
/// the drain's writes in the change log and evaluates only the
/// subscriptions whose reads they affect (O(writes + affected
/// subscriptions)); the root store has one subscriber however many scopes
/// are live. A hub lives while a scope subscription holds it (a
/// subscription token, or a scope observed through Observation); the last
/// one released disconnects it from the store.
///
/// One hub per root store and notification thread, found through
/// ``_StoreHubTable/scopes``.
internal final class _ScopeHub<Root>: @unchecked Sendable {
    // NB: `@unchecked Sendable`: immutable; the consumer and the
    // subscription are thread-safe.
    let consumer = StateConsumer<Root>()
    var subscription: StoreSubscription?
    let key: _StoreHubTable.Key

    init(key: _StoreHubTable.Key) {
        self.key = key
    }

    deinit {
        subscription?.cancel()
        _StoreHubTable.scopes.forget(key)
    }

    /// The hub of `store` for deliveries on `thread`, made and connected on
    /// first use.
    ///
    /// - Complexity: O(1) expected (a locked table lookup); connecting a
    ///   new hub subscribes to the store and consumes its state once.
    static func hub<Action>(for store: Store<Root, Action>, on thread: NotificationThread) -> _ScopeHub<Root> {
        let hub = _StoreHubTable.scopes.hub(for: store, on: thread) { key in
            let hub = _ScopeHub<Root>(key: key)
            hub.connect(to: store, on: thread)
            return hub
        }
        // NB: the same store object has the same `Root`.
        return unsafeDowncast(hub, to: _ScopeHub<Root>.self)
    }

    /// Subscribes the hub's consumer to `store` and consumes its current
    /// state.
    private func connect<Action>(to store: Store<Root, Action>, on thread: NotificationThread) {
        // NB: the consumer keeps the last state it consumed (shared with the
        // store's, no copy) to evaluate each new subscription against it as
        // it registers: its reads are recorded at once, and its baseline
        // is the state the next consume starts from.
        consumer.consumeInstantly = true
        // NB: the consumer reads the store's latest state with its
        // generation when its turn comes (what scope deliveries tell states
        // apart by, see `_ScopeDelivery`); the store is held weakly, as it
        // holds this closure.
        let weakStore = _UncheckedWeak(store)
        subscription = store.subscribe(on: thread) { [weak consumer] state in
            consumer?._consumeLatestTagged { weakStore.object?._stateAndGeneration ?? (state, 0) }
        }
        // NB: the current state, read without registering an Observation
        // access (a scope read inside `withObservationTracking` must not
        // make the tracker depend on the whole root state). Later consumes
        // find the drains' writes from it.
        consumer._consumeLatestTagged { store._stateAndGeneration }
    }
}


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
/// ``_ScopeHubTable``.
internal final class _ScopeHub<Root>: @unchecked Sendable {
    // NB: `@unchecked Sendable`: immutable; the consumer and the
    // subscription are thread-safe.
    let consumer = StateConsumer<Root>()
    var subscription: StoreSubscription?
    let key: _ScopeHubTable.Key

    init(key: _ScopeHubTable.Key) {
        self.key = key
    }

    deinit {
        subscription?.cancel()
        _ScopeHubTable.shared.forget(key)
    }

    /// The hub of `store` for deliveries on `thread`, made and connected on
    /// first use.
    ///
    /// - Complexity: O(1) expected (a locked table lookup); connecting a
    ///   new hub subscribes to the store and consumes its state once.
    static func hub<Action>(for store: Store<Root, Action>, on thread: NotificationThread) -> _ScopeHub<Root> {
        _ScopeHubTable.shared.hub(for: store, on: thread)
    }
}

/// The live hubs, by root store and notification thread. Entries hold the
/// store and the hub weakly: a hub is owned by its subscriptions, and
/// removes its entry when it goes.
internal final class _ScopeHubTable: @unchecked Sendable {
    // NB: `@unchecked Sendable`: `entries` is guarded by `lock`.
    static let shared = _ScopeHubTable()

    struct Key: Hashable {
        let store: ObjectIdentifier
        let thread: NotificationThread
    }

    struct Entry {
        weak var store: AnyObject?
        weak var hub: AnyObject?
    }

    private let lock = _Lock()
    private var entries: [Key: Entry] = [:]

    /// The live hub of `key`, if any.
    func _hubIfPresent(_ key: Key) -> AnyObject? {
        lock.withLock { entries[key]?.hub }
    }

    func hub<Root, Action>(for store: Store<Root, Action>, on thread: NotificationThread) -> _ScopeHub<Root> {
        let key = Key(store: ObjectIdentifier(store), thread: thread)
        lock.lock()
        defer { lock.unlock() }
        // NB: the entry must name this very store: a hub kept alive by a
        // subscription can outlive its store, and a new store can reuse
        // the old one's address.
        if let entry = entries[key], entry.store === store, let hub = entry.hub {
            // NB: the same store object has the same `Root`.
            return unsafeDowncast(hub, to: _ScopeHub<Root>.self)
        }
        let hub = _ScopeHub<Root>(key: key)
        // NB: the consumer keeps the last state it consumed (shared with the
        // store's, no copy) to evaluate each new subscription against it as
        // it registers: its reads are recorded at once, and its baseline
        // is the state the next consume starts from.
        hub.consumer.consumeInstantly = true
        // NB: connecting under the table lock takes the store's and the new
        // consumer's locks after it; nothing takes this lock while holding
        // either (a hub's deinit runs after its subscription's release, not
        // inside a store or consumer critical section).
        // NB: the consumer reads the store's latest state with its
        // generation when its turn comes (what scope deliveries tell states
        // apart by, see `_ScopeDelivery`); the store is held weakly, as it
        // holds this closure.
        let weakStore = _UncheckedWeak(store)
        hub.subscription = store.subscribe(on: thread) { [weak consumer = hub.consumer] state in
            consumer?._consumeLatestTagged { weakStore.object?._stateAndGeneration ?? (state, 0) }
        }
        // NB: the current state, read without registering an Observation
        // access (a scope read inside `withObservationTracking` must not
        // make the tracker depend on the whole root state). Later consumes
        // find the drains' writes from it.
        hub.consumer._consumeLatestTagged { store._stateAndGeneration }
        entries[key] = Entry(store: store, hub: hub)
        return hub
    }

    /// Removes the entry of `key` if its hub is gone (not if a newer hub
    /// replaced it).
    func forget(_ key: Key) {
        lock.lock()
        if let entry = entries[key], entry.hub == nil { entries[key] = nil }
        lock.unlock()
    }
}

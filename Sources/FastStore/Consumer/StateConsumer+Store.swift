extension StateConsumer {
    /// Feeds this consumer from `store`: it consumes the store's current
    /// state now, then every state the store publishes that changes what
    /// its selectors read, until the returned subscription is cancelled or
    /// released.
    ///
    /// This is the way to watch a store from many screens, each with its
    /// own consumer. On versioned state the consumers connected to a store
    /// (per notification thread) share one wake-up index of their reads:
    /// a publish looks the drain's writes up once and calls only the
    /// consumers whose reads they wrote, handing them the writes; the
    /// others are not called at all, so their number costs nothing. On
    /// plain state every consumer is called with every state (it compares
    /// every selection).
    ///
    /// ReSwiftConsumer's `newState(state:) { consumer.consume(newState:
    /// state) }` in each subscriber works as well, but the store then
    /// calls every subscriber at every publish: O(subscribers).
    ///
    /// The store holds the consumer weakly: a consumer that is deallocated
    /// stops consuming. The first consume (of the current state) runs on the
    /// calling thread. Callbacks run on `thread`, in order per consumer;
    /// consumers connected to one store are called in connection order
    /// within a publish.
    ///
    /// - Parameters:
    ///   - store: The store to consume.
    ///   - thread: Where the consumers are called (the store's
    ///     ``NotificationThread``; default: the draining thread).
    /// - Returns: The store subscription. Keep it: releasing it disconnects.
    /// - Complexity: the first consume evaluates every consumer. Per
    ///   publish of versioned state: O(writes + consumers connected to the
    ///   store whose reads were written × their selector cost), plus, for
    ///   a consumer with selectors that are evaluated at every consume (never
    ///   evaluated yet, or reading nothing the tracking sees) or with
    ///   ``consumeInstantly`` on, its consume. Per publish of plain state:
    ///   O(consumers × their selector cost).
    @inlinable
    public func connect<Action>(
        to store: Store<State, Action>,
        on thread: NotificationThread = .drainThread
    ) -> StoreSubscription {
        _connect(to: store, on: thread, read: nil)
    }

    /// ``connect(to:on:)``, its first consume reading the state with
    /// `read` (default: the published state, read without registering an
    /// Observation access).
    @inlinable
    internal func _connect<Action>(
        to store: Store<State, Action>, on thread: NotificationThread, read: (() -> State)?
    ) -> StoreSubscription {
        if _rootReader != nil { return _connectThroughHub(store, on: thread, read: read) }
        // NB: through a weak `let` in a class: a `[weak self]` capture is a
        // mutable box, read under a dynamic exclusivity check at every
        // dispatch.
        let target = _WeakConsumer(self)
        let subscription = store.subscribe(on: thread) { state in
            target.consumer?.consume(newState: state)
        }
        // NB: `@inlinable` so that the subscriber closure, the hot path of
        // every dispatch, calls a `consume` specialized for `State`.
        // NB: the current state is read once this thread holds the consuming
        // turn: a drain that publishes meanwhile is delivered after it, never
        // before, so the consumer does not step back to an older state.
        _consumeLatest(read ?? { store._unobservedState })
        return subscription
    }

    /// Connects this consumer of versioned state through `store`'s wake-up
    /// hub for `thread` (see `_WakeUpHub`).
    ///
    /// - Parameters:
    ///   - read: Reads the store's current state for the first consume
    ///     (default: the published state, read without registering an
    ///     Observation access: a consumer is no Observation tracking).
    ///   - onStoreGone: Called when the store is deallocated.
    @inlinable
    internal func _connectThroughHub<Action>(
        _ store: Store<State, Action>, on thread: NotificationThread,
        read: (() -> State)? = nil, onStoreGone: (() -> Void)? = nil
    ) -> StoreSubscription {
        // NB: a hub handed out just before its last connection went has
        // retired (`attach` says so): the table then makes a new one.
        var hub: _WakeUpHub<State>
        var attached: UInt64?
        repeat {
            hub = _WakeUpHub<State>.hub(for: store, on: thread) { target in
                { state in
                    target.hub.deliver(state)
                    return true
                }
            }
            attached = hub.attach(self, onStoreGone: onStoreGone)
        } while attached == nil
        let attachment = attached!
        // NB: the current state, read once this thread holds the consuming
        // turn. The hub tells the consumer every publish until one of its
        // deliveries anchors it.
        _consumeLatest(read ?? { store._unobservedState })
        return hub.subscription(for: attachment)
    }
}

/// A consumer held weakly, for the subscriber closure of
/// ``StateConsumer/connect(to:on:)``.
@usableFromInline
internal final class _WeakConsumer<State> {
    @usableFromInline weak let consumer: StateConsumer<State>?
    @inlinable init(_ consumer: StateConsumer<State>) { self.consumer = consumer }
}

@_spi(Facade)
extension StateConsumer {
    /// Consumes `store`'s current state, read once this thread holds the
    /// consuming turn (as the first consume of ``connect(to:on:)``): how a
    /// selection added to a connected consumer gets its first value at
    /// once. Called from one of this consumer's callbacks, the consume runs
    /// when that callback's consume ends.
    ///
    /// For `FastStoreReSwift`, whose `subscribe` delivers the current
    /// selection at once.
    ///
    /// - Complexity: O(the consumers that have not seen the current state)
    ///   when the consumer already consumed it; a consume otherwise.
    @inlinable
    public func _consumeCurrentState<Action>(of store: Store<State, Action>) {
        _consumeLatest { store._unobservedState }
    }

    /// Whether this consumer's state is tracked (versioned): its consumes
    /// evaluate only the selectors whose reads were written. On plain state
    /// every consume evaluates every selector.
    public var _tracksReads: Bool { _rootReader != nil }
}

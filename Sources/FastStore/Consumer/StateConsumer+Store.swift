extension StateConsumer {
    /// Feeds this consumer from `store`: it consumes the store's current
    /// state now, then every state the store publishes, until the returned
    /// subscription is cancelled or released.
    ///
    /// This is ReSwiftConsumer's `newState(state:) { consumer.consume(newState:
    /// state) }` pattern, which works as well. On versioned state each
    /// consume after the first finds the drains' writes in the change log,
    /// so only consumers that read a node a drain wrote are evaluated; on the
    /// main thread, where the store coalesces states, the writes of every
    /// skipped drain are found too.
    ///
    /// The store holds the consumer weakly: a consumer that is deallocated
    /// stops consuming. The first consume (of the current state) runs on the
    /// calling thread.
    ///
    /// - Parameters:
    ///   - store: The store to consume.
    ///   - thread: Where the consumers are called (the store's
    ///     ``NotificationThread``; default: the draining thread).
    /// - Returns: The store subscription. Keep it: releasing it disconnects.
    /// - Complexity: the first consume evaluates every consumer; each later
    ///   one, O(writes + affected consumers × their selector cost).
    @inlinable
    public func connect<Action>(
        to store: Store<State, Action>,
        on thread: NotificationThread = .drainThread
    ) -> StoreSubscription {
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
        _consumeLatest { store.state }
        return subscription
    }
}

/// A consumer held weakly, for the subscriber closure of
/// ``StateConsumer/connect(to:on:)``.
@usableFromInline
internal final class _WeakConsumer<State> {
    @usableFromInline weak let consumer: StateConsumer<State>?
    @inlinable init(_ consumer: StateConsumer<State>) { self.consumer = consumer }
}

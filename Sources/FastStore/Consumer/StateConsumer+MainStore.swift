extension StateConsumer {
    /// Feeds this consumer from a ``MainStore``, as `connect(to:on:)` does
    /// from a ``Store``: it consumes the store's
    /// current state now, then every state the store publishes that
    /// changes what its selectors read, on the main thread, until the
    /// returned subscription is cancelled or released.
    ///
    /// The store holds the consumer weakly.
    ///
    /// - Returns: The store subscription. Keep it: releasing it disconnects.
    /// - Complexity: as `connect(to:on:)` from a ``Store``, with the
    ///   draining thread (the main thread here).
    @MainActor
    public func connect<Action>(to store: MainStore<State, Action>) -> StoreSubscription {
        // NB: the current state is read here, on the main actor. The first
        // consume runs on whichever thread holds this consumer's turn (one
        // consuming a state from elsewhere, say), where a MainStore cannot
        // be read; a drain cannot publish before it, as drains run here.
        let current = store._engine._unobservedState
        return _connect(to: store._engine, on: .drainThread, read: { current })
    }
}

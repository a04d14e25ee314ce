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
        // NB: the first consume reads the store's state on the thread that
        // holds this consumer's turn: when another thread consumes a state
        // from elsewhere at that moment, that read is off the main actor,
        // and traps (see MainStore's documentation).
        _connect(to: store._engine, on: .drainThread, read: nil)
    }
}

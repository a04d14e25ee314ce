extension StateConsumer {
    /// Feeds this consumer from a scoped store: it consumes the scope's
    /// current state now, then the scope's state each time it changes,
    /// until the returned subscription is cancelled or released.
    ///
    /// The scope is notified only when its state changed (see
    /// ``ScopedStore``), so this consumer runs only then. Its selectors are
    /// evaluated against the scope's state; with a versioned scope state
    /// the consumer cannot link two states of the scope's node through the
    /// root store's change log, so each delivery compares every selection
    /// of this consumer.
    ///
    /// The scope's notification holds the consumer weakly: a consumer that
    /// is deallocated stops consuming.
    ///
    /// - Parameters:
    ///   - scope: The scoped store to consume.
    ///   - thread: Where the consumers are called (default: the root
    ///     store's draining thread).
    /// - Returns: The subscription. Keep it: releasing it disconnects.
    /// - Complexity: per change of the scope's state, O(consumers × their
    ///   selector cost); nothing when the scope's state did not change.
    public func connect<Action>(
        to scope: ScopedStore<State, Action>,
        on thread: NotificationThread = .drainThread
    ) -> StoreSubscription {
        let subscription = scope.subscribe(on: thread) { [weak self] state in
            self?.consume(newState: state)
        }
        _consumeLatest { scope._lens.read() }
        return subscription
    }
}

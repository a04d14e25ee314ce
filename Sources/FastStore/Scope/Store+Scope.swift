extension Store {
    /// A store of a part of this store's state, accepting the part's own
    /// actions: pointfree's "view" of a store, TCA's `scope`.
    ///
    /// ```swift
    /// let settings = store.scope(state: \.settings, action: { .settings($0) })
    /// let row = store.scope(state: { $0.rows[id: id] }, action: { .row(id, $0) })
    /// ```
    ///
    /// The scoped store's state is this store's state seen through
    /// `toChildState`; its dispatch reaches this store through
    /// `fromChildAction`. Its subscribers are called only when its state
    /// changed; with versioned state the cost per action is O(changed),
    /// whatever the number of live scopes (see ``ScopedStore``).
    ///
    /// - Parameters:
    ///   - toChildState: The part, from this store's state. Called when the
    ///     scope's state is read, and when the store notifies if it read
    ///     something the batch wrote.
    ///   - fromChildAction: This store's action for a child action.
    /// - Returns: The scoped store. It keeps this store alive.
    /// - Complexity: O(1).
    public func scope<ChildState, ChildAction>(
        state toChildState: @escaping (State) -> ChildState,
        action fromChildAction: @escaping (ChildAction) -> Action
    ) -> ScopedStore<ChildState, ChildAction> {
        ScopedStore(lens: _RootLens(store: self, get: toChildState, embed: fromChildAction))
    }
}

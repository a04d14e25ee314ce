// The `subscribe` overloads that skip repeats on their own when the
// (selected) state is `Equatable` and the store's `automaticallySkipsRepeats`
// is on (the default).

extension Store {
    /// As `subscribe(_:transform:)`, for an `Equatable` selection:
    /// with `automaticallySkipsRepeats` (the default) states whose selection
    /// is `==` to the previous one are skipped.
    public func subscribe<SelectedState: Equatable, S: StoreSubscriber>(
        _ subscriber: S, transform: ((Subscription<State>) -> Subscription<SelectedState>)?
    ) where S.StoreSubscriberStateType == SelectedState {
        let original = Subscription<State>()
        var transformed = transform?(original)
        if subscriptionsAutomaticallySkipRepeats {
            transformed = transformed?.skipRepeats()
        }
        _subscribe(subscriber, originalSubscription: original, transformedSubscription: transformed)
    }
}

extension Store where State: Equatable {
    /// As `subscribe(_:)`, for an `Equatable` state: with
    /// `automaticallySkipsRepeats` (the default) states `==` to the previous
    /// one are skipped.
    public func subscribe<S: StoreSubscriber>(_ subscriber: S) where S.StoreSubscriberStateType == State {
        let original = Subscription<State>()
        let transformed = subscriptionsAutomaticallySkipRepeats ? original.skipRepeats() : nil
        _subscribe(subscriber, originalSubscription: original, transformedSubscription: transformed)
    }
}

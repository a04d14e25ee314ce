/// A store you can dispatch to without knowing its state type.
public protocol DispatchingStoreType {
    /// Dispatches an action. See `Store.dispatch(_:)` for when
    /// the state reflects it.
    func dispatch(_ action: Action)
}

/// What a ReSwift store offers; ``Store`` is the implementation.
public protocol StoreType: DispatchingStoreType {
    associatedtype State

    /// The current state.
    var state: State! { get }

    /// The dispatch function every `dispatch` goes through: the middleware
    /// chain ending in the store's own dispatch.
    var dispatchFunction: DispatchFunction! { get }

    /// Subscribes `subscriber` to the whole state: it gets the current state
    /// at once, then the state after every dispatch.
    func subscribe<S: StoreSubscriber>(_ subscriber: S) where S.StoreSubscriberStateType == State

    /// Subscribes `subscriber` through a subscription that `transform` can
    /// narrow (`select`) and filter (`skipRepeats`, `skip(when:)`,
    /// `only(when:)`).
    func subscribe<SelectedState, S: StoreSubscriber>(
        _ subscriber: S, transform: ((Subscription<State>) -> Subscription<SelectedState>)?
    ) where S.StoreSubscriberStateType == SelectedState

    /// As `subscribe(_:transform:)`, for an `Equatable` selection:
    /// repeats are skipped when the store was created with
    /// `automaticallySkipsRepeats` (the default).
    func subscribe<SelectedState: Equatable, S: StoreSubscriber>(
        _ subscriber: S, transform: ((Subscription<State>) -> Subscription<SelectedState>)?
    ) where S.StoreSubscriberStateType == SelectedState

    /// Stops notifying `subscriber`.
    func unsubscribe(_ subscriber: AnyStoreSubscriber)

    /// Dispatches the action an action creator returns, if any.
    func dispatch(_ actionCreator: ActionCreator)

    /// Dispatches the action creator an async action creator produces.
    func dispatch(_ asyncActionCreator: AsyncActionCreator)

    /// Dispatches the action creator an async action creator produces, then
    /// calls `callback` with the new state.
    func dispatch(_ asyncActionCreator: AsyncActionCreator, callback: DispatchCallback?)

    /// Called with the state once an async action creator's action is reduced.
    associatedtype DispatchCallback = (State) -> Void

    /// Returns an action for a state and a store, or `nil` for none.
    associatedtype ActionCreator = (_ state: State, _ store: any StoreType) -> Action?

    /// Produces an action creator, possibly later.
    associatedtype AsyncActionCreator =
        (_ state: State, _ store: any StoreType, _ actionCreatorCallback: (ActionCreator) -> Void) -> Void
}

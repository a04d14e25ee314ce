/// An object a ``Store`` can notify, whatever the state type (the store
/// calls `_newState(state:)`). Conform to ``StoreSubscriber`` instead.
public protocol AnyStoreSubscriber: AnyObject {
    // swiftlint:disable:next identifier_name
    func _newState(state: Any)
}

/// An object that receives a store's state, or the part of it a
/// ``Subscription`` selects. The store holds it weakly.
///
/// ```swift
/// final class CounterViewController: StoreSubscriber {
///     func newState(state: Int) { label.text = "\(state)" }
/// }
/// store.subscribe(viewController) { $0.select { $0.counter } }
/// ```
public protocol StoreSubscriber: AnyStoreSubscriber {
    associatedtype StoreSubscriberStateType

    /// Called with the current (selected) state when subscribing, then after
    /// every dispatch the subscription does not skip.
    func newState(state: StoreSubscriberStateType)
}

extension StoreSubscriber {
    /// Forwards a state of this subscriber's type to ``newState(state:)``;
    /// a state of any other type is not delivered (the store's own
    /// subscriptions always deliver the subscriber's type).
    // swiftlint:disable:next identifier_name
    public func _newState(state: Any) {
        if let typedState = state as? StoreSubscriberStateType {
            newState(state: typedState)
        }
    }
}

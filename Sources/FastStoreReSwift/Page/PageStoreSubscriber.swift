// ReSwiftConsumer's page-store subscription: an object that subscribes to
// the app's store (`StoreSubscriber.newState(state:)`) can subscribe to a
// page store of its own too, receiving its states in `newPageState(state:)`.

/// An object that receives a page store's states, whatever their type.
/// Conform to ``PageStoreSubscriber`` instead.
public protocol AnyPageStoreSubscriber: AnyObject {
    // swiftlint:disable:next identifier_name
    func _newAnyState(state: Any)
}

/// An object that receives a page store's states in
/// ``newPageState(state:)``, beside (or instead of) the app store's states
/// in `StoreSubscriber.newState(state:)`.
///
/// ```swift
/// final class MainScreen: PageStoreSubscriber, StoreSubscriber {
///     typealias StoreSubscriberStateType = AppState
///     typealias PageStoreSubscriberStateType = MainState
///     lazy var pageStoreSubscriber = RePageStoreSubscriber(subscriber: self)
///
///     func bind() {
///         appStore.subscribe(self)
///         pageStore.subscribe(pageStoreSubscriber)
///     }
///     func newState(state: AppState) { appConsumer.consume(newState: state) }
///     func newPageState(state: MainState) { pageConsumer.consume(newState: state) }
/// }
/// ```
public protocol PageStoreSubscriber: AnyPageStoreSubscriber {
    associatedtype PageStoreSubscriberStateType

    /// Called with the page store's state when subscribing, then after
    /// every dispatch to the page store.
    func newPageState(state: PageStoreSubscriberStateType)
}

extension PageStoreSubscriber {
    /// Forwards a state of this subscriber's page state type to
    /// ``newPageState(state:)``.
    // swiftlint:disable:next identifier_name
    public func _newAnyState(state: Any) {
        if let typedState = state as? PageStoreSubscriberStateType {
            newPageState(state: typedState)
        }
    }
}

/// The ``StoreSubscriber`` a ``PageStoreSubscriber`` subscribes to its page
/// store: it forwards the page store's states to the subscriber's
/// `newPageState(state:)`.
///
/// It holds its subscriber weakly (ReSwiftConsumer's holds it strongly, a
/// retain cycle when the subscriber keeps it in a property, as it does).
/// Keep it for as long as the page subscription lasts: the store holds it
/// weakly too.
public final class RePageStoreSubscriber<S>: StoreSubscriber {
    public typealias StoreSubscriberStateType = S

    private weak var subscriber: AnyPageStoreSubscriber?

    /// A store subscriber forwarding to `subscriber` (states of another
    /// type than its page state type are not delivered).
    @_disfavoredOverload
    public init(subscriber: AnyPageStoreSubscriber) {
        self.subscriber = subscriber
    }

    /// A store subscriber forwarding to `subscriber`, of its page state type
    /// (`lazy var pageStoreSubscriber = RePageStoreSubscriber(subscriber: self)`).
    public init<Subscriber: PageStoreSubscriber>(subscriber: Subscriber)
    where Subscriber.PageStoreSubscriberStateType == S {
        self.subscriber = subscriber
    }

    public func newState(state: S) {
        subscriber?._newAnyState(state: state)
    }
}

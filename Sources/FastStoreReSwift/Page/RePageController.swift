/// Owns a page store (a store whose state lives as long as one screen) and
/// feeds its states to shared ``StateConsumer``s: ReSwiftConsumer's
/// `RePageController`.
///
/// Subclass it and override the page's reducer, initial state and
/// middleware; the store is created on first use.
///
/// ```swift
/// final class MainController: RePageController<MainState> {
///     override func getPageReducer() -> Reducer<MainState> { mainReducer }
///     override func getPageInitialState() -> MainState? { MainState() }
/// }
/// let controller = MainController()
/// controller.addSharedConsumer(screen.pageConsumer)
/// controller.bindState()                       // subscribes to the page store
/// controller.pageStore.dispatch(MainAction.increase)
/// controller.unbindState()                     // unsubscribes, empties the consumers
/// ```
///
/// Not thread-safe by itself: use it from one thread (the main thread, as
/// ReSwiftConsumer's view controllers do). The page store is.
open class RePageController<PS>: PageStoreSubscriber {
    public typealias PageStoreSubscriberStateType = PS

    /// The page store, created on first use from ``getPageReducer()``,
    /// ``getPageInitialState()`` and ``getPageMiddleWares()``.
    open lazy var pageStore: Store<PS> = Store<PS>(
        reducer: getPageReducer(),
        state: getPageInitialState(),
        middleware: getPageMiddleWares())

    /// The subscriber ``bindState()`` subscribes to the page store.
    open lazy var pageStoreSubscriber: RePageStoreSubscriber<PS> = RePageStoreSubscriber(subscriber: self)

    /// The consumers that receive the page store's states.
    public var sharedConsumers = Set<StateConsumer<PS>>()

    public required init() {}

    /// The page's reducer. Override it; the default keeps the state as it
    /// is, and so needs ``getPageInitialState()`` to give one.
    open func getPageReducer() -> Reducer<PS> {
        return { _, state in
            guard let state else {
                preconditionFailure("RePageController: override getPageReducer() or getPageInitialState(): there is no page state to keep")
            }
            return state
        }
    }

    /// The page store's middleware. Default: none.
    open func getPageMiddleWares() -> [Middleware<PS>] {
        []
    }

    /// The page store's initial state; `nil` (the default) lets the reducer
    /// build it from ``ReSwiftInit``.
    open func getPageInitialState() -> PS? {
        nil
    }

    /// Subscribes ``pageStoreSubscriber`` to the page store: the shared
    /// consumers get the current page state at once, then every new one.
    open func bindState() {
        pageStore.subscribe(pageStoreSubscriber)
    }

    /// Unsubscribes from the page store, and removes every consumer of the
    /// shared consumers and the shared consumers themselves.
    open func unbindState() {
        pageStore.unsubscribe(pageStoreSubscriber)
        for consumer in sharedConsumers {
            consumer.removeAll()
        }
        sharedConsumers.removeAll()
    }

    /// Passes a page state to every shared consumer.
    open func newPageState(state: PS) {
        for consumer in sharedConsumers {
            consumer.consume(newState: state)
        }
    }

    /// Adds a consumer of the page states. With its `consumeInstantly` on,
    /// it consumes the current page state at once.
    public func addSharedConsumer(_ consumer: StateConsumer<PS>) {
        sharedConsumers.update(with: consumer)
        if consumer.consumeInstantly {
            consumer.consume(new: pageStore.state)
        }
    }

    /// Stops passing page states to `consumer`.
    public func removeSharedConsumer(_ consumer: StateConsumer<PS>) {
        sharedConsumers.remove(consumer)
    }
}

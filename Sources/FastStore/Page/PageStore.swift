#if canImport(Combine)
import Combine
#endif

/// A store that lives and dies with a screen, with the consumers the screen
/// binds on it and on the app's stores, all unbound in one call or when the
/// page store is released: ReSwiftConsumer's `PageStoreSubscriber` /
/// `RePageInteractor` pattern, in one object.
///
/// ```swift
/// final class MainScreen {
///     let page = PageStore(state: MainState(count: 10), reducer: mainReducer, middleware: [logger])
///
///     func bind() {
///         page.consumer.add({ $0.count }, onCountChanged)                      // page state
///         page.consumer(of: appStore).add({ $0.foreground }, onForeground)     // app state
///     }
///     func tap() { page.dispatch(.increment); appStore.dispatch(.refresh) }
///     // releasing the screen releases `page`: every consumer is unbound
/// }
/// ```
///
/// The page's ``store`` is an ordinary ``Store`` (scope it, subscribe to it,
/// connect other consumers to it); ``consumer`` and
/// ``consumer(of:on:)-(Store<AppState,AppAction>,_)`` (or its form for a
/// ``ScopedStore``) are ``StateConsumer``s already connected to their
/// stores, so on versioned state each dispatch runs only the consumers
/// whose reads it wrote. They consume instantly (``StateConsumer/consumeInstantly``): a
/// consumer added to them is called at once with the current state, so the
/// screen renders what is there. ``unbindAll()`` removes every consumer and disconnects them; asking
/// for a consumer again binds it again.
public final class PageStore<State, Action> {
    // NB: `@unchecked Sendable`: `_pageSubscription` and `_appBindings` are
    // guarded by `_lock`; the rest is immutable.

    /// The page's own store: its state, reducer and middleware.
    public let store: Store<State, Action>
    /// Where the page's consumers and those asked for with
    /// ``consumer(of:on:)-(Store<AppState,AppAction>,_)`` without a thread
    /// are called.
    public let thread: NotificationThread
    private let _pageConsumer = StateConsumer<State>()
    private let _lock = _Lock()
    private var _pageSubscription: StoreSubscription?
    private var _appBindings: [_PageBinding] = []

    /// Creates a page store.
    ///
    /// - Parameters:
    ///   - state: The page's initial state.
    ///   - reducer: The page's reducer.
    ///   - middleware: The page's middleware, run before its reducer.
    ///   - thread: Where the page's consumers are called (default: the
    ///     draining thread; `.main` for UI).
    /// - Complexity: O(1).
    public init(
        state: State,
        reducer: @escaping Reducer<State, Action>,
        middleware: [Middleware<State, Action>] = [],
        on thread: NotificationThread = .drainThread
    ) {
        store = Store(state: state, reducer: reducer, middleware: middleware)
        self.thread = thread
        _pageConsumer.consumeInstantly = true
    }

    deinit {
        unbindAll()
    }

    /// The page store's latest state (see ``Store/state``).
    ///
    /// - Complexity: O(1).
    public var state: State { store.state }

    /// Dispatches an action to the page store (see ``Store/dispatch(_:)``).
    ///
    /// - Complexity: as ``Store/dispatch(_:)``.
    public func dispatch(_ action: Action) {
        store.dispatch(action)
    }

    /// The consumer of the page's state, connected to the page store:
    /// add the page's consumers to it.
    ///
    /// Connected when first asked for, and again after ``unbindAll()``.
    ///
    /// - Complexity: O(1); connecting consumes the page's state once.
    public var consumer: StateConsumer<State> {
        _lock.lock()
        let connected = _pageSubscription != nil
        _lock.unlock()
        if connected { return _pageConsumer }
        // NB: connected outside the lock: connecting consumes the current
        // state, and consumers kept from before an `unbindAll()` may call
        // back into the page. Two threads racing here both connect; one
        // subscription is kept.
        let subscription = _pageConsumer.connect(to: store, on: thread)
        _lock.lock()
        let kept = _pageSubscription == nil
        if kept { _pageSubscription = subscription }
        _lock.unlock()
        if !kept { subscription.cancel() }
        return _pageConsumer
    }

    /// The page's consumer of an app store's state, connected to it: add
    /// the consumers of the app state the page needs. One consumer per app
    /// store and thread, made and connected when first asked for (and again
    /// after ``unbindAll()``).
    ///
    /// The page holds the app store weakly: it never keeps it alive.
    ///
    /// - Parameters:
    ///   - appStore: The app store (or any other store the page reads).
    ///   - thread: Where the consumers are called (default: the page's
    ///     ``thread``).
    /// - Complexity: O(stores the page is bound to); connecting consumes the
    ///   app state once.
    public func consumer<AppState, AppAction>(
        of appStore: Store<AppState, AppAction>,
        on thread: NotificationThread? = nil
    ) -> StateConsumer<AppState> {
        _consumer(of: appStore, on: thread ?? self.thread) { consumer, thread in
            consumer.connect(to: appStore, on: thread)
        }
    }

    /// The page's consumer of a scoped store's state (a part of the app
    /// state), connected to it; as ``consumer(of:on:)`` for a store.
    ///
    /// - Complexity: O(stores the page is bound to); connecting consumes the
    ///   scope's state once.
    public func consumer<AppState, AppAction>(
        of scope: ScopedStore<AppState, AppAction>,
        on thread: NotificationThread? = nil
    ) -> StateConsumer<AppState> {
        _consumer(of: scope, on: thread ?? self.thread) { consumer, thread in
            consumer.connect(to: scope, on: thread)
        }
    }

    /// Removes every consumer of the page (its own and those of app
    /// stores) and disconnects them from their stores. The page store keeps
    /// its state and keeps working; consumers asked for afterwards are
    /// connected again.
    ///
    /// Called when the page store is released.
    ///
    /// - Complexity: O(consumers + their dependencies).
    public func unbindAll() {
        _lock.lock()
        let pageSubscription = _pageSubscription
        let appBindings = _appBindings
        _pageSubscription = nil
        _appBindings = []
        _lock.unlock()
        pageSubscription?.cancel()
        _pageConsumer.removeAll()
        for binding in appBindings {
            binding.subscription.cancel()
            binding.removeAll()
        }
    }

    /// The number of stores the page's consumers are connected to, its own
    /// included.
    ///
    /// - Complexity: O(1).
    public var boundStoreCount: Int {
        _lock.withLock { (_pageSubscription == nil ? 0 : 1) + _appBindings.count }
    }

    private func _consumer<Source: AnyObject, AppState>(
        of source: Source,
        on thread: NotificationThread,
        connect: (StateConsumer<AppState>, NotificationThread) -> StoreSubscription
    ) -> StateConsumer<AppState> {
        _lock.lock()
        defer { _lock.unlock() }
        if let binding = _appBindings.first(where: { $0.source === source && $0.thread == thread }) {
            // NB: the same store object has the same state type.
            return unsafeDowncast(binding.consumer, to: StateConsumer<AppState>.self)
        }
        let consumer = StateConsumer<AppState>()
        consumer.consumeInstantly = true
        // NB: connecting under the page's lock takes the store's and the
        // new consumer's locks after it; the new consumer has no consumers
        // to call back into the page yet.
        let subscription = connect(consumer, thread)
        _appBindings.append(_PageBinding(
            source: source, thread: thread, consumer: consumer, subscription: subscription,
            removeAll: { [weak consumer] in consumer?.removeAll() }))
        return consumer
    }
}

/// One store a page's consumer is connected to.
private struct _PageBinding {
    weak var source: AnyObject?
    let thread: NotificationThread
    let consumer: AnyObject
    let subscription: StoreSubscription
    let removeAll: () -> Void
}

#if canImport(Combine)
/// SwiftUI's `ObservableObject` (`@StateObject var page = PageStore(…)`):
/// the page store's `objectWillChange`.
extension PageStore: ObservableObject {
    /// The page store's change publisher.
    ///
    /// - Complexity: O(1).
    public var objectWillChange: ObservableObjectPublisher { store.objectWillChange }
}
#endif

extension PageStore: @unchecked Sendable where State: Sendable, Action: Sendable {}

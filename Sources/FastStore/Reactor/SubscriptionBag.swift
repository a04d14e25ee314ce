/// Subscriptions kept together and cancelled together: when the bag is
/// released or ``cancelAll()`` is called. ReactorKit's `DisposeBag` (a
/// ``ReactorView`` keeps its bindings in one), usable for any
/// ``StoreSubscription``: store, scope, consumer and reactor subscriptions,
/// and tasks.
///
/// ```swift
/// reactor.observe(\.isLoading) { spinner.isAnimating = $0 }.store(in: bag)
/// bag.insert(Task { for await user in reactor.pulse(\.$openProfile) { open(user) } })
/// ```
public final class SubscriptionBag: @unchecked Sendable {
    // NB: `@unchecked Sendable`: the fields are guarded by `_lock`.
    private let _lock = _Lock()
    private var _subscriptions: [StoreSubscription] = []
    private var _reactor: AnyObject?

    /// An empty bag.
    ///
    /// - Complexity: O(1).
    public init() {}

    deinit {
        for subscription in _subscriptions { subscription.cancel() }
    }

    /// Keeps `subscription` until the bag is released or emptied.
    ///
    /// - Complexity: O(1) amortized.
    public func insert(_ subscription: StoreSubscription) {
        _lock.withLock { _subscriptions.append(subscription) }
    }

    /// Keeps `task` until the bag is released or emptied, then cancels it.
    ///
    /// - Complexity: O(1) amortized.
    public func insert<Success: Sendable, Failure: Error>(_ task: Task<Success, Failure>) {
        insert(StoreSubscription { task.cancel() })
    }

    /// Cancels and forgets every subscription in the bag.
    ///
    /// - Complexity: O(subscriptions).
    public func cancelAll() {
        let subscriptions = _lock.withLock {
            let subscriptions = _subscriptions
            _subscriptions = []
            return subscriptions
        }
        for subscription in subscriptions { subscription.cancel() }
    }

    /// The number of subscriptions in the bag.
    ///
    /// - Complexity: O(1).
    public var count: Int { _lock.withLock { _subscriptions.count } }

    /// The reactor of the ``ReactorView`` that owns the bag.
    var reactor: AnyObject? {
        get { _lock.withLock { _reactor } }
        set { _lock.withLock { _reactor = newValue } }
    }
}

extension StoreSubscription {
    /// Keeps the subscription in `bag` until the bag is released or
    /// emptied.
    ///
    /// - Complexity: O(1) amortized.
    public func store(in bag: SubscriptionBag) {
        bag.insert(self)
    }
}

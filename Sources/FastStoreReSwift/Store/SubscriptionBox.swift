import Atomics
import FastStore

/// One subscriber of a ``Store``: its subscription chain and the subscriber,
/// held weakly. The store keeps the boxes; a box forwards each published
/// state into its chain, with the state it forwarded before as `old`.
///
/// Deliveries to one box never overlap: one thread at a time runs the chain,
/// the others queue their states for it; and a box drops a state older than
/// the one it delivered last (a subscriber added on one thread while another
/// dispatches gets the current state and the newer ones, each once, in
/// order).
class SubscriptionBox<State>: Hashable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: the delivery fields are guarded by
    // `deliveryLock`; the chain is run only by the thread that set
    // `isDelivering`.
    private let originalSubscription: Subscription<State>
    /// The subscriber; `nil` once it is deallocated.
    weak var subscriber: AnyStoreSubscriber?
    private let objectIdentifier: ObjectIdentifier

    private let deliveryLock = _Lock()
    /// Whether a thread is running the chain; others queue in `pending`.
    private var isDelivering = false
    private var pending: [(state: State, sequence: UInt64)] = []
    private var lastState: State?
    /// The store's publish number of `lastState` (0: none yet; the store numbers its states from 1).
    private var lastSequence: UInt64 = 0
    private let cancelled = ManagedAtomic<Bool>(false)

    /// A box feeding `subscriber` from `transformedSubscription` when given,
    /// from `originalSubscription` otherwise.
    init<T>(
        originalSubscription: Subscription<State>,
        transformedSubscription: Subscription<T>?,
        subscriber: AnyStoreSubscriber
    ) {
        self.originalSubscription = originalSubscription
        self.subscriber = subscriber
        self.objectIdentifier = ObjectIdentifier(subscriber)
        // NB: the end of the chain holds the box weakly: the store owns the
        // box, the box owns the chain.
        if let transformedSubscription {
            transformedSubscription.observer = { [weak self] _, new in
                self?._forward(new)
            }
        } else {
            originalSubscription.observer = { [weak self] _, new in
                self?._forward(new)
            }
        }
        // NB: after the box's observer is set: a transform that returns a
        // stage before the `skipRepeats()` (or the store's subscription
        // itself) leaves that `skipRepeats()` unfed, and the chain the
        // subscriber is fed from untracked.
        tracked = _TrackedSelection.heading(originalSubscription)
    }

    /// The tracked selection the chain starts with, if any: then the store
    /// registers it with its consumer (``track(in:onGone:)``) and does not deliver
    /// to the box (see `Subscription+Tracking.swift`).
    private(set) var tracked: _TrackedSelection? = nil
    /// Whether a tracked box handed its subscriber a value yet.
    let hasDelivered = ManagedAtomic<Bool>(false)
    /// Removes the tracked selection from the store's consumer.
    private var untrack: (() -> Void)?
    /// Called when a tracked selection finds its subscriber gone.
    private var onSubscriberGone: ((SubscriptionBox<State>) -> Void)?

    /// Hands the end of the chain's value to the subscriber.
    private func _forward(_ value: Any) {
        if let subscriber {
            if tracked != nil { hasDelivered.store(true, ordering: .relaxed) }
            subscriber._newState(state: value)
        } else if tracked != nil {
            _subscriberGone()
        }
    }

    /// Tells the store, once, that a tracked box's subscriber is gone.
    func _subscriberGone() {
        // NB: the store does not deliver to a tracked box, so it would not
        // learn that the subscriber is gone; the box tells it.
        deliveryLock.lock()
        let onGone = onSubscriberGone
        onSubscriberGone = nil
        deliveryLock.unlock()
        onGone?(self)
    }

    /// Registers the tracked selection with `consumer`: its changes now run
    /// the chain. `onGone` is called (once) when a change finds the
    /// subscriber deallocated.
    ///
    /// - Complexity: O(1).
    func track<Root>(in consumer: StateConsumer<Root>, onGone: @escaping (SubscriptionBox<State>) -> Void) {
        // NB: the selector runs only while the subscriber lives (as ReSwift
        // looks at the subscriber before running the chain): a selector
        // capturing it `unowned` must not run once it is gone.
        let registered = tracked?.register(consumer, { [weak self] in
            guard let self else { return false }
            if subscriber != nil { return true }
            _subscriberGone()
            return false
        })
        guard let handle = registered as? ConsumerHandle<Root> else { return }
        deliveryLock.lock()
        let isCancelled = self.isCancelled
        if !isCancelled {
            untrack = { [weak consumer] in consumer?.remove(handle) }
            onSubscriberGone = onGone
        }
        deliveryLock.unlock()
        if isCancelled { consumer.remove(handle) }
    }

    /// Whether the subscriber was unsubscribed or replaced.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// The subscriber's identity, fixed when the box was made.
    var subscriberID: ObjectIdentifier { objectIdentifier }

    /// Stops deliveries. A delivery under way on another thread finishes.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        deliveryLock.lock()
        let untrack = self.untrack
        self.untrack = nil
        onSubscriberGone = nil
        deliveryLock.unlock()
        untrack?()
    }

    /// Sends the pair (last state delivered, `state`) through the chain,
    /// unless a state at least as new was delivered already or the box is
    /// cancelled.
    ///
    /// A delivery that arrives while another is under way (a subscriber that
    /// dispatches from `newState`, or another thread's notification) is
    /// queued, and delivered in order by the thread already delivering once
    /// the current call returns: the subscriber is never re-entered, and no
    /// lock is held while it runs.
    ///
    /// - Parameter sequence: The store's publish number of `state`.
    /// - Returns: `false` when the subscriber is gone (deallocated).
    @discardableResult
    func deliver(_ state: State, sequence: UInt64) -> Bool {
        deliveryLock.lock()
        guard subscriber != nil else {
            deliveryLock.unlock()
            return false
        }
        if isDelivering {
            pending.append((state, sequence))
            deliveryLock.unlock()
            return true
        }
        isDelivering = true
        var next: (state: State, sequence: UInt64)? = (state, sequence)
        while let (state, sequence) = next {
            var pair: (old: State?, new: State)?
            if sequence > lastSequence && !isCancelled {
                pair = (lastState, state)
                lastState = state
                lastSequence = sequence
            }
            deliveryLock.unlock()
            if let pair {
                originalSubscription.newValues(oldState: pair.old, newState: pair.new)
            }
            deliveryLock.lock()
            next = pending.isEmpty ? nil : pending.removeFirst()
        }
        isDelivering = false
        deliveryLock.unlock()
        return true
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(objectIdentifier)
    }

    static func == (left: SubscriptionBox<State>, right: SubscriptionBox<State>) -> Bool {
        left.objectIdentifier == right.objectIdentifier
    }
}

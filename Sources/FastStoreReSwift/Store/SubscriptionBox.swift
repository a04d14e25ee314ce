import Atomics

/// One subscriber of a ``Store``: its subscription chain and the subscriber,
/// held weakly. The store keeps the boxes; a box forwards each published
/// state into its chain, with the state it forwarded before as `old`.
///
/// Deliveries to one box never overlap: a box delivers under its own lock,
/// and drops a state older than the one it delivered last (a subscriber
/// added on one thread while another dispatches gets the current state and
/// the newer ones, each once, in order).
class SubscriptionBox<State>: Hashable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: `lastState` and `lastSequence` are guarded
    // by `deliveryLock`; the chain is only run under it.
    private let originalSubscription: Subscription<State>
    /// The subscriber; `nil` once it is deallocated.
    weak var subscriber: AnyStoreSubscriber?
    private let objectIdentifier: ObjectIdentifier

    private let deliveryLock = _Lock()
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
                self?.subscriber?._newState(state: new)
            }
        } else {
            originalSubscription.observer = { [weak self] _, new in
                self?.subscriber?._newState(state: new)
            }
        }
    }

    /// Whether the subscriber was unsubscribed or replaced.
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// The subscriber's identity, fixed when the box was made.
    var subscriberID: ObjectIdentifier { objectIdentifier }

    /// Stops deliveries. A delivery under way on another thread finishes.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }

    /// Sends the pair (last state delivered, `state`) through the chain,
    /// unless a state at least as new was delivered already or the box is
    /// cancelled.
    ///
    /// - Parameter sequence: The store's publish number of `state`.
    /// - Returns: `false` when the subscriber is gone (deallocated).
    @discardableResult
    func deliver(_ state: State, sequence: UInt64) -> Bool {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        guard subscriber != nil else { return false }
        guard sequence > lastSequence, !isCancelled else { return true }
        let old = lastState
        lastState = state
        lastSequence = sequence
        originalSubscription.newValues(oldState: old, newState: state)
        return true
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(objectIdentifier)
    }

    static func == (left: SubscriptionBox<State>, right: SubscriptionBox<State>) -> Bool {
        left.objectIdentifier == right.objectIdentifier
    }
}

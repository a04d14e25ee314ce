import Atomics

/// Where a store calls a subscriber.
public enum NotificationThread: Sendable, Hashable {
    /// On the thread that drained the batch, right after the state is
    /// published, before the drain takes the next batch. Cheapest; the
    /// default.
    case drainThread
    /// On the main thread (through the main dispatch queue when the drain
    /// runs elsewhere). Notifications queued while one is pending are
    /// coalesced: the subscriber gets the latest state once.
    case main
}

/// A subscription to a ``Store``'s state changes.
///
/// The subscription lasts until ``cancel()`` is called or the token is
/// released. Keep it (for example in a `Set<StoreSubscription>` or a
/// property) for as long as you want to be notified.
public final class StoreSubscription: Hashable, Sendable {
    @usableFromInline let _cancelled = ManagedAtomic<Bool>(false)
    /// Run once by ``cancel()``, then dropped: it holds the subscriber's
    /// entry, and through it the subscriber's closure, which may hold this
    /// subscription (a subscriber that cancels itself).
    ///
    /// NB: `nonisolated(unsafe)`: read and cleared only by the one call of
    /// `cancel()` that flips `_cancelled` (the exchange orders it after
    /// `init`).
    nonisolated(unsafe) private var _onCancel: (@Sendable () -> Void)?

    init(onCancel: @escaping @Sendable () -> Void) {
        _onCancel = onCancel
    }

    deinit { cancel() }

    /// Whether ``cancel()`` was called or the token released.
    public var isCancelled: Bool { _cancelled.load(ordering: .acquiring) }

    /// Stops the notifications. After `cancel()` returns the subscriber is
    /// not called again, except for a call already running on another thread.
    /// Safe to call more than once, from any thread, and from inside the
    /// subscriber itself.
    public func cancel() {
        if _cancelled.exchange(true, ordering: .acquiringAndReleasing) { return }
        let onCancel = _onCancel
        _onCancel = nil
        onCancel?()
    }

    /// Keeps the subscription in `set` (Combine's `AnyCancellable` habit).
    public func store(in set: inout Set<StoreSubscription>) {
        set.insert(self)
    }

    public static func == (lhs: StoreSubscription, rhs: StoreSubscription) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// An object that receives a store's state; the store holds it weakly.
///
/// ```swift
/// final class CounterViewModel: StoreSubscriber {
///     func newState(state: AppState) { label = "\(state.counter)" }
/// }
/// store.subscribe(viewModel)       // held weakly: releasing it ends the subscription
/// store.unsubscribe(viewModel)
/// ```
public protocol StoreSubscriber<StoreSubscriberStateType>: AnyObject {
    associatedtype StoreSubscriberStateType
    func newState(state: StoreSubscriberStateType)
}

/// One registered subscriber. Immutable but for its flags; the store keeps
/// them in an array it replaces (never mutates) under its lock, so a drain
/// can iterate a snapshot without holding the lock.
@usableFromInline
internal final class _Subscriber<State>: @unchecked Sendable {
    @usableFromInline let id: UInt64
    @usableFromInline let thread: NotificationThread
    /// Calls the subscriber; returns `false` once it is gone (a released
    /// object subscriber) so the store can drop it.
    @usableFromInline let deliver: (State) -> Bool
    /// The wake-up hub this entry delivers to, when it is one on the
    /// draining thread: the drain calls it directly, with the batch's
    /// changes as an argument (``_WakeUpHub/deliver(_:drained:)``), rather
    /// than through `deliver`. The entry owns it (see ``_HubOwner``).
    @usableFromInline let wakeUps: _HubOwner<State>?
    /// `wakeUps`, unretained: the drain calls it through this, with no
    /// retain and release of it (the entry holds it).
    @usableFromInline let _unretainedWakeUps: Unmanaged<_HubOwner<State>>?
    /// The subscribing object, for `unsubscribe(_:)`.
    @usableFromInline weak var object: AnyObject?
    @usableFromInline let isObjectSubscriber: Bool
    // NB: a `ManagedAtomic`, unlike the store's other hot flags: a
    // wake-up hub keeps this flag beyond the entry (`_WakeUpHub.hub(for:)`
    // captures it, not the entry, which owns the hub).
    @usableFromInline let cancelled = ManagedAtomic<Bool>(false)

    /// For `.main` delivery: the latest state not yet delivered, and whether
    /// a delivery is scheduled. Guarded by `mainLock`.
    let mainLock = _Lock()
    var mainPending: State?
    var mainScheduled = false

    init(
        id: UInt64, thread: NotificationThread, object: AnyObject?, wakeUps: _HubOwner<State>? = nil,
        deliver: @escaping (State) -> Bool
    ) {
        self.id = id
        self.thread = thread
        self.object = object
        self.isObjectSubscriber = object != nil
        self.wakeUps = wakeUps
        self._unretainedWakeUps = wakeUps.map { Unmanaged.passUnretained($0) }
        self.deliver = deliver
    }

}

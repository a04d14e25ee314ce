#if canImport(Dispatch)
import Dispatch
#endif

// An owned store: the engine of a `MainStore`. Its state is read and
// drained on the main thread only, so its working copy is its published
// state (no second copy shares its nodes, and a drain writes them in place
// where nothing else holds them). A dispatch on the main thread drains
// there, as `Store.dispatch` does; one from another thread is queued and
// drained by a drain scheduled on the main queue, batched with whatever
// else was queued by then. The queue's side of it is
// `_DispatchQueueState`'s owner methods; this file is the store's.

/// Whether the calling code runs on the main actor: on the process's main
/// thread (`context.isMainThread`, found once per thread), or on a thread
/// that is running the main queue. The second happens where the main thread
/// gave the main queue to libdispatch (`dispatchMain()`, as an `async` main
/// does on Linux): main-actor code then runs on one of its worker threads.
@inlinable
func _isOnMainActor(_ context: _TrackingContext) -> Bool {
    #if canImport(Dispatch)
    context.isMainThread || _MainQueue.isCurrent()
    #else
    context.isMainThread
    #endif
}

#if canImport(Dispatch)
/// Tells whether the main queue runs the calling code, through a
/// queue-specific value set on it.
@usableFromInline
enum _MainQueue {
    @usableFromInline static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// - Complexity: O(1): a lookup of the current queue's specific value.
    @usableFromInline static func isCurrent() -> Bool {
        DispatchQueue.getSpecific(key: key) ?? false
    }
}
#endif

extension Store {
    /// Checks that an owned store's state may be read here: on the main
    /// thread, and not while its reducers hold the working copy `inout`.
    @inlinable
    func _checkOwnedRead() {
        let context = _TrackingContext.current
        _usagePrecondition(
            _isOnMainActor(context),
            "FastStore: a MainStore's state was read off the main thread (directly, or through a consumer, a scope or a sequence reading it there); a MainStore is read on the main actor only: use Store for state shared across threads"
        )
        _usagePrecondition(
            !_owned.pointee.reducing,
            "FastStore: a MainStore's state was read while its reducer runs (by the reducer, or by code it called); read the state the reducer is given"
        )
    }

    /// An owned store: dispatches `actions` in order, as one group. On the
    /// main thread it drains here (taking first what other threads queued
    /// before); elsewhere it queues them and schedules a drain on the main
    /// thread when none runs or is scheduled.
    ///
    /// - Complexity: amortized O(1) per action to queue; on the main
    ///   thread, plus the reducer.
    @inlinable
    func _dispatchOwned(_ action: Action, context: _TrackingContext) {
        if _isOnMainActor(context) {
            _lock.lock()
            let claim = _guarded.pointee.queue.enqueueOnOwner(action)
            _lock.unlock()
            switch claim {
            case .queued: return
            case .drainFirst: _drain(first: action)
            case .drainQueue: _drain()
            }
        } else {
            _dispatchOwnedElsewhere(CollectionOfOne(action))
        }
    }

    /// An owned store: ``_dispatchOwned(_:context:)`` for several actions,
    /// queued together.
    @inlinable
    func _dispatchOwned(contentsOf actions: [Action], context: _TrackingContext) {
        if actions.isEmpty { return }
        if _isOnMainActor(context) {
            // NB: `Store`'s group claim: with actions to add, it drains when
            // no drain runs, whatever other threads queued before them.
            _lock.lock()
            let mustDrain = _guarded.pointee.queue.enqueue(contentsOf: actions)
            _lock.unlock()
            if mustDrain { _drain() }
        } else {
            _dispatchOwnedElsewhere(actions)
        }
    }

    /// An owned store: queues `actions` for the main thread's drain, and
    /// schedules one when none runs or is scheduled.
    @usableFromInline
    func _dispatchOwnedElsewhere<S: Sequence>(_ actions: S) where S.Element == Action {
        _lock.lock()
        let schedule = _guarded.pointee.queue.enqueueForOwner(contentsOf: actions)
        _lock.unlock()
        if schedule { _scheduleOwnedDrain() }
    }

    /// An owned store, on the main thread: drains what other threads queued,
    /// now, unless a drain runs (up this thread's stack).
    @usableFromInline
    func _drainOwnedQueue() {
        _lock.lock()
        let claimed = _guarded.pointee.queue.claimOwnerDrain()
        _lock.unlock()
        if claimed { _drain() }
    }

    /// Schedules ``_drainOwnedQueue()`` on the main thread.
    @usableFromInline
    func _scheduleOwnedDrain() {
        #if canImport(Dispatch)
        let store = _UncheckedSendable(self)
        DispatchQueue.main.async { store.value._drainOwnedQueue() }
        #else
        _drainOwnedQueue()
        #endif
    }
}

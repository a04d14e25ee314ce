import Atomics
#if canImport(Combine)
import Combine
#endif
#if canImport(Dispatch)
import Dispatch
#endif
import Observation

/// A store: holds the state, reduces dispatched actions into it in order, and
/// notifies subscribers once per batch.
///
/// A drop-in for the store people write by hand:
///
/// ```swift
/// typealias AppStore = Store<AppState, AppAction>
/// let store = AppStore(state: AppState(currentDice: "⚀"), reducer: appReducer(_:_:))
/// store.dispatch(action: .rollTheDice)
/// print(store.state.currentDice)
/// ```
///
/// ## Threading
/// `dispatch` is safe from any thread or task. Actions go onto one serial
/// queue. A `dispatch` that finds no drain running drains the queue itself, on
/// the calling thread: it takes every queued action, reduces them in order on
/// one working copy of the state, publishes the new state once, then notifies
/// subscribers once for the whole batch; it repeats while actions keep
/// arriving and returns when the queue is empty.
///
/// So `state` reflects a dispatched action:
/// - when `dispatch` returns, if no drain was running when it was called
///   (the common case: one thread, outside any callback);
/// - later, in the same drain, if it was called from inside the drain
///   (reducer, middleware or subscriber: the action is queued behind the
///   others, never reduced re-entrantly, never a deadlock) or while another
///   thread was draining (that thread reduces it before it stops).
///
/// To wait for every action dispatched so far, `await store.flush()` (or
/// `waitUntilIdle()` from synchronous code outside the drain).
///
/// No action is lost and none is reduced twice, whatever the number of
/// threads: the queue and the drain flag change under one lock, and only the
/// thread that set the flag reduces.
///
/// ## Subscribers
/// Subscribers are called in subscription order, on the draining thread by
/// default, after the state is published (so `store.state` inside the call
/// returns at least the notified state). Ask for ``NotificationThread/main``
/// to be called on the main thread instead. Cancelling or releasing a
/// subscription, or deallocating an object subscriber, during a notification
/// is safe.
///
/// ## Observation
/// `Store` is `Observable`: `withObservationTracking { store.state }` sees
/// every published change. Where Combine exists it is also an
/// `ObservableObject`, usable as `@EnvironmentObject` / `@ObservedObject`.
public final class Store<State, Action> {
    // NB: the mutable state lives in two manually allocated structs reached
    // through pointers, not in stored `var`s: class properties pay Swift's
    // dynamic exclusivity checks on every access (about half the cost of a
    // dispatch, measured with `perf record`), pointers do not. Exclusivity is
    // guaranteed by the lock and the single-drainer rule instead.

    /// Guarded by `_lock`: the published state (none in an owned store:
    /// see `_isOwned`), the queue, the subscribers.
    @usableFromInline let _guarded: UnsafeMutablePointer<_StoreGuarded<State, Action>>
    /// Owned by the draining thread (at most one at a time, see
    /// `_DispatchQueueState.isDraining`): the working copy and the batch.
    @usableFromInline let _owned: UnsafeMutablePointer<_StoreDrainOwned<State, Action>>
    @usableFromInline let _lock = _Lock()
    @usableFromInline let _journal = _WriteJournal()
    /// This store's recent drains, where watchers find what a drain wrote.
    @usableFromInline let _changeLog = _ChangeLog.forStore()
    /// Reuses the list nodes a drain's writes replaced (see `_NodeRecycler`).
    @usableFromInline let _recycler = _NodeRecycler()

    @usableFromInline let _reducer: Reducer<State, Action>
    @usableFromInline let _middleware: [Middleware<State, Action>]
    @usableFromInline let _rootVersion: ((State) -> _RootVersion)?
    /// How ``_rootVersion`` reads the state: the drain reads its working
    /// copy's root in place with it.
    @usableFromInline let _rootLayout: _RootVersion._Layout?
    /// The generation of the published state, stepped by every publish:
    /// what a tracked read is checked against (see `state`).
    @usableFromInline let _publication = _Publication()
    /// The process's Observation hub (``_ObservationHub/shared``), held so
    /// that a drain asks it whether anything observes with one load: the
    /// global's accessor is a `swift_once` check and a retain per drain.
    @usableFromInline let _observationHub = _ObservationHub.shared
    @usableFromInline let _registrar = ObservationRegistrar()
    /// `\.state`, instantiated once: a key path into a generic class is
    /// otherwise built at run time on every use (two mallocs, microseconds).
    @usableFromInline let _stateKeyPath: KeyPath<Store<State, Action>, State>
    /// Whether `state` was read since the last publish. Observation
    /// registrations are one-shot and made by reading `state`, so a publish
    /// with no read since the previous one has nobody to tell and skips the
    /// registrar (~100 ns).
    @usableFromInline let _readSincePublish = ManagedAtomic<Bool>(true)
    /// How many receivers of causes (change subscribers, change sequences)
    /// are registered: a drain copies its batch's actions for them only
    /// when this is not zero (see `Store+Changes.swift`).
    /// (An `_OwnedAtomic`.)
    @usableFromInline let _causeReceivers = _OwnedAtomic<Int>(0)
    /// Whether this is a ``MainStore``'s engine: an *owned* store, whose
    /// state only the owning thread (the main thread) reads and drains.
    /// Its working copy is its published state: no second copy shares the
    /// nodes, so a drain writes them in place where nothing else holds
    /// them. Dispatches from other threads are queued and drained on the
    /// owning thread (`Store+Owner.swift`).
    @usableFromInline let _isOwned: Bool

    #if canImport(Combine)
    /// Combine's change publisher, for SwiftUI's `ObservableObject` support.
    public let objectWillChange = ObservableObjectPublisher()
    #endif

    /// Creates a store.
    ///
    /// - Parameters:
    ///   - state: The initial state.
    ///   - reducer: Applies one action to the state, in place.
    ///   - middleware: Runs, in order, before the reducer for every action.
    public convenience init(
        state: State,
        reducer: @escaping Reducer<State, Action>,
        middleware: [Middleware<State, Action>] = []
    ) {
        self.init(state: state, reducer: reducer, middleware: middleware, owned: false)
    }

    /// Creates a store, or an owned one (a ``MainStore``'s engine).
    @usableFromInline
    internal init(
        state: State,
        reducer: @escaping Reducer<State, Action>,
        middleware: [Middleware<State, Action>],
        owned: Bool
    ) {
        _isOwned = owned
        _guarded = .allocate(capacity: 1)
        _guarded.initialize(to: _StoreGuarded(state: owned ? nil : state))
        _owned = .allocate(capacity: 1)
        _owned.initialize(to: _StoreDrainOwned(working: state))
        _reducer = reducer
        _middleware = middleware
        _rootVersion = _RootVersion.reader(for: State.self)
        _rootLayout = _RootVersion._layout(of: State.self)
        _stateKeyPath = \Store<State, Action>.state
        // NB: filed now, so that a watcher of the initial state finds the
        // log (and marks it wanted) before the first drain.
        if let root = _rootVersion?(state) { _changeLog.file(under: root.node) }
    }

    deinit {
        _changeLog.unfile()
        _guarded.deinitialize(count: 1)
        _guarded.deallocate()
        _owned.deinitialize(count: 1)
        _owned.deallocate()
    }

    /// The latest published state.
    ///
    /// Reflects every action of every finished batch (see the threading notes
    /// on ``Store``). Reading it registers an Observation access.
    ///
    /// - Complexity: O(1): a lock and a copy of the state value (its buffers
    ///   are shared, not copied).
    // NB: inlinable, so that the read is specialized for `State` where it
    // is made: unspecialized, every read copied the published
    // `Optional<State>` through `Optional`'s generic value witnesses.
    @inlinable
    public var state: State {
        let context = _TrackingContext.current
        // NB: inside a drain (reducers, middleware, subscribers) a read
        // registers nothing; while the drain calls Observation's observers
        // it does (a tracking started in an `onChange`). Checked on the
        // innermost drain: one nested in an `onChange` resets
        // `callingObserversOf`, so its reads register nothing either, and
        // `drainingStore` is nil only when no drain runs on this thread.
        guard context.drainingStore == nil || context.drainingStore == context.callingObserversOf else {
            return _publishedState
        }
        if _rootVersion != nil {
            // Versioned state: a look of its own (see `_ObservationHub`),
            // which what this thread reads from the state next is filed
            // under, checked against the generation read here.
            _lock.lock()
            let state = _publishedUnderLock
            let generation = _publication.generation.load(ordering: .relaxed)
            _lock.unlock()
            context.observesReads = true
            let thread = _ObservedThread.of(context)
            thread.observedPublication = _publication
            thread.observedGeneration = generation
            _ObservationHub.shared.beginLook(thread, _publication, generation: generation)
            return state
        }
        // NB: register, then flag, then read; a publish writes, then takes
        // the flag, then notifies. A read that gets an older state than a
        // publish's registered and flagged before that publish wrote, so the
        // publish (or an earlier one, which then notified this registration)
        // finds the flag set and notifies it (`StoreObservationRaceTests`).
        _registrar.access(self, keyPath: _stateKeyPath)
        if !_readSincePublish.load(ordering: .sequentiallyConsistent) {
            _readSincePublish.store(true, ordering: .sequentiallyConsistent)
        }
        // The key of this generation's state, which the publish that
        // replaces it fires, and fires again, asynchronously, while a
        // tracking that was not installed yet still holds it (see
        // `_notifyWholeStateObservers`).
        let onMain = _ObservationHub._isMainThread
        _lock.lock()
        let state = _publishedUnderLock
        let generation = _publication.generation.load(ordering: .relaxed)
        let snapshotKeyPath = _publication.snapshotKeyPath(generation, onMain: onMain)
        _lock.unlock()
        let hub = _ObservationHub.shared
        hub.registrar.access(hub, keyPath: snapshotKeyPath)
        return state
    }

    /// The published state, read without registering anything.
    @inlinable
    var _publishedState: State {
        _lock.lock()
        defer { _lock.unlock() }
        return _publishedUnderLock
    }

    /// The published state, read under the lock: an owned store's working
    /// copy, read on the owning thread (checked), outside its reducers.
    @inlinable
    var _publishedUnderLock: State {
        if _isOwned {
            _checkOwnedRead()
            return _owned.pointee.working
        }
        return _guarded.pointee.state.unsafelyUnwrapped
    }

    /// Dispatches an action. See ``Store`` for when `state` reflects it.
    ///
    /// - Complexity: amortized O(1) plus the reducer, when this call drains:
    ///   one lock to enqueue, one to take the batch, one to publish.
    @inlinable
    public func dispatch(_ action: Action) {
        if _isOwned { return _TrackingContext._withCurrent { _dispatchOwned(action, context: $0) } }
        _lock.lock()
        let mustDrain = _guarded.pointee.queue.enqueue(action)
        _lock.unlock()
        if mustDrain { _drain(first: action) }
    }

    /// Dispatches several actions at once: they are queued together, in
    /// order, so no other thread's action lands between them, and a drain
    /// that finds them all queued reduces them as one batch with one
    /// notification.
    ///
    /// `actions` is iterated once, before the store's lock is taken: a lazy
    /// sequence's closures may read the store, or dispatch.
    ///
    /// - Complexity: O(`actions.count`) plus the reducer, when this call drains.
    @inlinable
    public func dispatch<S: Sequence>(contentsOf actions: S) where S.Element == Action {
        // NB: an array is taken as it is (no copy); any other sequence is
        // iterated here, outside the lock, as its code is the caller's.
        let actions = Array(actions)
        if _isOwned { return _TrackingContext._withCurrent { _dispatchOwned(contentsOf: actions, context: $0) } }
        _lock.lock()
        let mustDrain = _guarded.pointee.queue.enqueue(contentsOf: actions)
        _lock.unlock()
        if mustDrain { _drain() }
    }

    /// Dispatches an action (the hand-written store's spelling).
    @inlinable
    public func dispatch(action: Action) {
        dispatch(action)
    }

    /// Waits until every action dispatched before this call has been reduced,
    /// published and notified (the queue is empty and no drain runs).
    ///
    /// Calling it from inside the drain (a reducer, middleware or subscriber,
    /// or another store's drain one of them started on this thread) would
    /// wait for itself: that is a precondition failure.
    public func flush() async {
        _usagePrecondition(
            !_TrackingContext.isDraining(ObjectIdentifier(self)),
            "FastStore: Store.flush() called from inside the store's own drain (reducer, middleware or subscriber, or another store's drain they started); it would wait for itself"
        )
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _resumeWhenIdle(continuation)
        }
    }

    /// Resumes `continuation` now if the queue is idle, else when it goes
    /// idle (the drain that empties it resumes it).
    @usableFromInline
    func _resumeWhenIdle(_ continuation: CheckedContinuation<Void, Never>) {
        _lock.lock()
        if _guarded.pointee.queue.isIdle {
            _lock.unlock()
            continuation.resume()
        } else {
            _guarded.pointee.queue.idleWaiters.append(continuation)
            _lock.unlock()
        }
    }

    /// Blocks the calling thread until the queue is idle (see ``flush()``).
    ///
    /// - Precondition: not called from inside this store's drain, nor from
    ///   another store's drain nested in it on this thread.
    @inlinable
    public func waitUntilIdle() {
        // NB: an owned store drains on the main thread: there, what other
        // threads queued is drained now rather than waited for. Both that
        // and the check below are asked once, when the store is not idle: an
        // idle store runs no drain, on this thread or any other.
        var drainsHere: Bool? = nil
        while true {
            _lock.lock()
            let idle = _guarded.pointee.queue.isIdle
            _lock.unlock()
            if idle { return }
            if drainsHere == nil {
                drainsHere = _TrackingContext._withCurrent { context in
                    _usagePrecondition(
                        !context.isDraining(ObjectIdentifier(self)),
                        "FastStore: Store.waitUntilIdle() called from inside the store's own drain (reducer, middleware or subscriber, or another store's drain they started); it would wait for itself"
                    )
                    return _isOwned && _isOnMainActor(context)
                }
            }
            if drainsHere! { _drainOwnedQueue() } else { _yieldThread() }
        }
    }

    /// Number of actions dispatched so far (a test hook).
    @_spi(Testing)
    public var dispatchedCount: UInt64 {
        _lock.withLock { _guarded.pointee.queue.enqueuedCount }
    }
}

/// A weak reference that crosses isolation domains: the store's internals
/// are thread-safe whatever its `State` and `Action`.
@usableFromInline
internal struct _UncheckedWeak<Object: AnyObject>: @unchecked Sendable {
    @usableFromInline weak var object: Object?
    @inlinable init(_ object: Object) { self.object = object }
}

@usableFromInline
internal struct _UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline let value: Value
    @inlinable init(_ value: Value) { self.value = value }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@usableFromInline
internal func _yieldThread() {
    sched_yield()
}

extension Store: @unchecked Sendable where State: Sendable, Action: Sendable {}

import Atomics
@_spi(Facade) import FastStore

// The facade's engine: the FastStore store it runs on, made with the first
// state, and the consumer of tracked selections connected to it. Made by
// `@inlinable` code (see `Store.init`), so that what runs per dispatch is
// specialized for the client's state.

extension Store {
    /// On plain state the consumer of tracked selections compares every
    /// selection at every consume; it keeps its last state, so that a new
    /// subscription's selector runs alone, at once (see `_subscribe`).
    @usableFromInline
    final func _configureTrackedConsumer() {
        if !trackedConsumer._tracksReads { trackedConsumer.consumeInstantly = true }
    }

    /// The engine; `nil` until the first state exists.
    @inlinable
    var core: FastStore.Store<State, any Action>? {
        coreReference.load()
    }

    /// Creates the engine with `state`, and its subscription that publishes
    /// to the boxes (not installed yet: see `_install(_:_:)`).
    @inlinable
    final func _makeCore(state: State) -> (FastStore.Store<State, any Action>, StoreSubscription) {
        let reducer = self.reducer
        let core = FastStore.Store<State, any Action>(state: state) { current, action in
            current = reducer(action, current)
        }
        let subscription = core.subscribe { [weak self] state in
            self?.publish(state)
        }
        return (core, subscription)
    }

    /// Installs the engine and its subscription.
    @usableFromInline
    final func _install(_ core: FastStore.Store<State, any Action>, _ subscription: StoreSubscription) {
        lock.withLock { _installLocked(core, subscription) }
    }

    /// Under the lock: installs the engine and its subscription.
    final func _installLocked(_ core: FastStore.Store<State, any Action>, _ subscription: StoreSubscription) {
        coreSubscription = subscription
        _ = coreReference.storeIfNilThenLoad(core)
    }

    /// Connects the consumer of tracked selections to the engine: its first
    /// consume delivers the current selection to those subscribed before
    /// the first state. Outside `lock`: it runs subscribers.
    @inlinable
    final func _connectTrackedConsumer(_ core: FastStore.Store<State, any Action>) {
        let connection = trackedConsumer.connect(to: core)
        _keepTrackedConnection(connection)
    }

    @usableFromInline
    final func _keepTrackedConnection(_ connection: StoreSubscription) {
        lock.withLock { trackedConnection = connection }
    }

    /// Hands an action to the engine, or makes the engine with it.
    @inlinable
    final func _dispatchToCore(_ action: any Action) {
        if let core {
            core.dispatch(action)
        } else {
            _reduceFirst(action)
        }
    }

    /// The first reduction: the reducer builds the state from `nil`, then
    /// the engine is created with it. Actions that reach the reducer
    /// meanwhile (dispatched by the reducer, or by another thread) are
    /// queued, and handed to the engine after it.
    @inlinable
    final func _reduceFirst(_ action: any Action) {
        guard _claimFirstReduction(action) else { return }
        let state = reducer(action, nil)
        let (core, subscription) = _makeCore(state: state)
        let queued = _installFirstCore(core, subscription, state)
        _connectTrackedConsumer(core)
        for action in queued {
            core.dispatch(action)
        }
    }

    /// Whether this call makes the engine: `false` when the engine exists
    /// (the action was handed to it) or is being made (the action was
    /// queued).
    @usableFromInline
    final func _claimFirstReduction(_ action: any Action) -> Bool {
        lock.lock()
        if let core {
            lock.unlock()
            core.dispatch(action)
            return false
        }
        if isCreatingCore {
            actionsBeforeCore.append(action)
            lock.unlock()
            return false
        }
        isCreatingCore = true
        lock.unlock()
        return true
    }

    /// Installs the engine made with the first state and delivers that
    /// state to the untracked boxes (subscribers registered before it, when
    /// a middleware held `ReSwiftInit` back, get it now, as ReSwift
    /// notifies them; the tracked ones get it when the consumer connects);
    /// returns the actions queued meanwhile.
    @usableFromInline
    final func _installFirstCore(
        _ core: FastStore.Store<State, any Action>, _ subscription: StoreSubscription, _ state: State
    ) -> [any Action] {
        lock.lock()
        _installLocked(core, subscription)
        isCreatingCore = false
        let queued = actionsBeforeCore
        actionsBeforeCore = []
        // The first state is numbered 1, as one given to `init` is.
        publishedSequence = 1
        published = state
        let boxes = subscriptionList.boxes
        lock.unlock()
        for box in boxes where !box.isCancelled {
            box.deliver(state, sequence: 1)
        }
        return queued
    }
}

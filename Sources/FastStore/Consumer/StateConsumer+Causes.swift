// Consumers that learn why their selection changed: callbacks that take the
// actions reduced since the previous consume, fed by `connectChanges(to:on:)`
// (or `consume(_:)` with a `StoreChange`).
//
// NB: the consumer is not generic over the action type, so the causes of a
// consume travel type-erased (an `[Action]` in an `Any`, stored inline, no
// allocation) in a slot that only the thread holding the consuming turn
// touches: set before the consume, cleared at its end; each callback casts
// them back to the `[Action]` it declared.

extension StateConsumer {
    /// Adds a consumer called, whenever the selection changes, with the
    /// previous selection (`nil` the first time), the new one, and the
    /// actions reduced since the previous consume: what changed it.
    ///
    /// ```swift
    /// consumer.add({ $0.todos }) { (old: [Todo]?, new: [Todo], actions: [AppAction]) in
    ///     table.reload(animated: !actions.contains(.undo))
    /// }
    /// let subscription = consumer.connectChanges(to: store)
    /// ```
    ///
    /// The actions come from consumes that carry them:
    /// ``connectChanges(to:on:)`` and ``consume(_:)``. A consume without them
    /// (``consume(newState:)``,
    /// ``connect(to:on:)-(Store<State,Action>,_)``, the first consume of a
    /// connection, an evaluation on `add` with ``consumeInstantly``) passes
    /// an empty array.
    ///
    /// - Precondition: the consumes' actions are `[Action]` (the store's
    ///   action type).
    /// - Complexity: O(1). Per call, a cast of the consume's actions.
    @inlinable @discardableResult
    public func add<T: Equatable, Action>(
        _ selector: @escaping (State) -> T,
        _ consumer: @escaping (_ old: T?, _ new: T, _ actions: [Action]) -> Void
    ) -> ConsumerHandle<State> {
        let causes = _causeSlot()
        return _register { id in
            ConsumerHandle._selection(id: id, baseline: nil, selector: selector) { old, new in
                consumer(old, new, causes.actions(as: Action.self))
            }
        }
    }

    /// Delivers a state with the actions that produced it: as
    /// ``consume(newState:)``, and the callbacks that take actions get
    /// `change.actions`.
    ///
    /// - Complexity: as ``consume(newState:)``.
    @inlinable
    public func consume<Action>(_ change: StoreChange<State, Action>) {
        _lock.lock()
        // NB: with no callback that takes actions there is no slot, and the
        // actions are dropped. A consume queued behind a running one sets
        // them when its turn comes: a queued read, which costs a closure,
        // rather than a case of its own in every queued consume.
        guard let slot = _guarded.causeSlot else {
            let mustConsume = _guarded.turn.arrive(.state(change.state))
            _lock.unlock()
            guard mustConsume else { return }
            _consumeOne(change.state)
            _finishTurn()
            return
        }
        if _guarded.turn.isTaken {
            let state = change.state, actions = change.actions
            _ = _guarded.turn.arrive(.read({
                slot.current = actions
                return state
            }))
            _lock.unlock()
            return
        }
        _ = _guarded.turn.arrive(.state(change.state))
        _lock.unlock()
        slot.current = change.actions
        _consumeOne(change.state)
        _finishTurn()
    }

    /// Feeds this consumer from `store` with each state's causes: as
    /// ``connect(to:on:)-(Store<State,Action>,_)``, and the callbacks that
    /// take actions (see `add(_:_:)` with an `actions` parameter) get the
    /// actions reduced since the previous consume: one batch's on the
    /// draining thread, every coalesced batch's on
    /// ``NotificationThread/main``. The first consume, of the current state,
    /// has none.
    ///
    /// - Parameters:
    ///   - store: The store to consume.
    ///   - thread: Where the consumers are called (default: the draining
    ///     thread).
    /// - Returns: The store subscription. Keep it: releasing it disconnects.
    /// - Complexity: as ``connect(to:on:)-(Store<State,Action>,_)``; while
    ///   connected, each batch copies its actions once (O(batch size)).
    @inlinable
    public func connectChanges<Action>(
        to store: Store<State, Action>,
        on thread: NotificationThread = .drainThread
    ) -> StoreSubscription {
        let subscription = store.subscribeChanges(on: thread) { [weak self] change in
            self?.consume(change)
        }
        // NB: as `connect(to:on:)`: the current state is read once this
        // thread holds the consuming turn.
        _consumeLatest { store._unobservedState }
        return subscription
    }

    /// The slot the callbacks that take causes read, made on first use.
    @inlinable
    internal func _causeSlot() -> _CauseSlot {
        _lock.withLock {
            if let slot = _guarded.causeSlot { return slot }
            let slot = _CauseSlot()
            _guarded.causeSlot = slot
            return slot
        }
    }
}

/// The causes of the consume being delivered (an `[Action]`, type-erased).
///
/// NB: `@unchecked Sendable`: `current` is written and read only by the
/// thread holding the owning consumer's consuming turn.
@usableFromInline
internal final class _CauseSlot: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var current: Any?

    @inlinable init() {}

    /// The causes as the `[Action]` a callback declared; empty when the
    /// consume came without causes.
    @inlinable
    func actions<Action>(as _: Action.Type) -> [Action] {
        guard let current else { return [] }
        guard let actions = current as? [Action] else {
            _usagePrecondition(false, "FastStore: a StateConsumer callback takes [\(Action.self)], but the consume's actions are \(type(of: current)): declare the store's action type")
            return []
        }
        return actions
    }
}

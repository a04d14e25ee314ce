extension Reactor {
    /// The reactor's engine, made at first use.
    var _engine: _ReactorEngine<Self> {
        if let engine = runtime._engine {
            // NB: a runtime belongs to one reactor, whose engine this is.
            return unsafeDowncast(engine, to: _ReactorEngine<Self>.self)
        }
        let engine = _ReactorEngine(reactor: self)
        runtime._engine = engine
        engine.start()
        return engine
    }

    /// Sends an action: ReactorKit's `reactor.action.onNext(_:)`.
    ///
    /// When `mutate(action:)` returns mutations known now and the transform
    /// hooks are the defaults, they are reduced and the new state is
    /// published before `send` returns; otherwise as the streams deliver
    /// (``flush()`` waits for them). In stub mode the action is only
    /// recorded (``ReactorStub/actions``).
    ///
    /// - Complexity: O(1) plus `mutate`, and per mutation known now `reduce`
    ///   and the observers.
    public func send(_ action: Action) {
        _engine.send(action)
    }

    /// The last published state.
    ///
    /// - Complexity: O(1).
    public var currentState: State {
        _engine.currentState
    }

    /// The reactor's states: the current state, then every state published
    /// after it, in order. Iterate it once; the iteration ends when the
    /// reactor is released or the iterating task is cancelled.
    ///
    /// - Complexity: O(1) to make; one buffered element per state published
    ///   until it is read.
    public var states: ReactorStream<State> {
        let current = currentState
        return _engine.makeStream { continuation in
            continuation.yield(current)
            return _engine.addObserver { continuation.yield($0) }
        }
    }

    /// Waits until every action sent so far has been handled: its mutation
    /// streams ended, and the mutations and states they made reduced and
    /// published.
    ///
    /// With transform hooks that change the streams, it waits until each
    /// hook asks the reactor's stream for more with nothing left in it.
    /// That is exact for hooks made of `map`, `compactMap`, `filter` and
    /// `concat` of the stream they are given (the iterating task pulls the
    /// elements through them, with no task in between). With
    /// ``ReactorStream/merge(_:)-(ReactorStream<Element>...)`` or another
    /// sequence that runs tasks of its own, an element may still be inside
    /// the hook when `flush()` returns; elements a hook holds back (a delay)
    /// and the streams it merges in are not waited for.
    ///
    /// - Complexity: O(1) when nothing is under way.
    public func flush() async {
        await _engine.flush()
    }

    /// Calls `body` with the current state now and with every state
    /// published after it, until the returned subscription is cancelled or
    /// released (keep it in the view's ``SubscriptionBag``).
    ///
    /// - Complexity: O(1) to add; per state published, one call.
    public func observe(_ body: @escaping (State) -> Void) -> StoreSubscription {
        body(currentState)
        return _engine.addObserver(body)
    }

    /// Calls `body` with a part of the current state now, then each time a
    /// published state's part differs from the last one: ReactorKit's
    /// `reactor.state.map(select).distinctUntilChanged()`.
    ///
    /// ```swift
    /// reactor.observe(\.isLoading) { [weak self] in self?.spinner.isAnimating = $0 }
    ///     .store(in: bag)
    /// ```
    ///
    /// - Complexity: O(1) to add; per state published, `select` and one
    ///   comparison.
    public func observe<Value: Equatable>(
        _ select: @escaping (State) -> Value,
        _ body: @escaping (Value) -> Void
    ) -> StoreSubscription {
        var last = select(currentState)
        body(last)
        return _engine.addObserver { state in
            let value = select(state)
            if value != last {
                last = value
                body(value)
            }
        }
    }

    /// Calls `body` with a ``Pulse`` property's value every time it is
    /// assigned in a state published from now on, even with an equal value,
    /// and not when another property changes.
    ///
    /// ```swift
    /// reactor.pulse(\.$alertMessage) { [weak self] message in
    ///     if let message { self?.showAlert(message) }
    /// }.store(in: bag)
    /// ```
    ///
    /// - Complexity: O(1) to add; per state published, one comparison.
    public func pulse<Value>(
        _ keyPath: KeyPath<State, Pulse<Value>>,
        _ body: @escaping (Value) -> Void
    ) -> StoreSubscription {
        var lastCount = currentState[keyPath: keyPath].valueUpdatedCount
        return _engine.addObserver { state in
            let pulse = state[keyPath: keyPath]
            if pulse.valueUpdatedCount != lastCount {
                lastCount = pulse.valueUpdatedCount
                body(pulse.value)
            }
        }
    }

    /// The values of a ``Pulse`` property, one per assignment in a state
    /// published from now on (see ``pulse(_:_:)``).
    ///
    /// - Complexity: O(1) to make.
    public func pulse<Value: Sendable>(_ keyPath: KeyPath<State, Pulse<Value>>) -> ReactorStream<Value> {
        _engine.makeStream { continuation in
            pulse(keyPath) { continuation.yield($0) }
        }
    }
}

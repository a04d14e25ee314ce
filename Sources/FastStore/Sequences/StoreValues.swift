/// One selection of a store's state as an asynchronous sequence: the current
/// selection first, then each new selection when it changes, latest-value
/// (an iterator that falls behind gets the latest selection, skipping those
/// in between, and nothing when the selection came back to the one it last
/// delivered).
///
/// ```swift
/// for await todo in store.values({ $0.todos[id: id] }) {
///     cell.render(todo)
/// }
/// ```
///
/// Whether the selection changed is decided by a ``StateConsumer`` per
/// iterator: on versioned state the selector runs only after drains that
/// wrote what it read, so a dispatch that changes other parts of the state
/// costs the iterator nothing but a look at the drain's writes; on plain
/// state it runs after every batch and its selections are compared with
/// `==`.
///
/// Iterators are independent, hold the store weakly, and end as those of
/// ``StoreStates`` do (cancellation, the store's deallocation, being dropped).
///
/// - Complexity: per published batch and iterator, the consume of one
///   consumer: O(writes) when the drain did not write what the selector read,
///   else the selector and `==`.
public struct StoreValues<State, Value: Equatable>: AsyncSequence, Sendable {
    public typealias Element = Value
    public typealias Failure = Never

    let _subscribe: _SelectionSubscribe<State, Value>

    /// Creates an independent iterator; it subscribes on its first `next()`.
    ///
    /// - Complexity: O(1).
    public func makeAsyncIterator() -> Iterator {
        Iterator(_iteration: _SelectionIteration(subscribe: _subscribe))
    }

    /// An iterator of ``StoreValues``.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = Value
        public typealias Failure = Never

        var _iteration: _SelectionIteration<State, Value>

        /// The next selection: the current one first, then the latest one
        /// that differs from the last delivered (waiting for it if there is
        /// none); `nil` once the task is cancelled or the store is gone.
        ///
        /// - Complexity: O(1), plus one `==` when the iterator skipped
        ///   selections.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> Value? {
            await _iteration.next(isolation: actor)?.value
        }

        /// The next selection (see ``next(isolation:)``).
        ///
        /// - Complexity: as ``next(isolation:)``.
        public mutating func next() async -> Value? {
            await next(isolation: nil)
        }
    }
}

/// One selection of a store's state as an asynchronous sequence of changes:
/// each element holds the new selection and the one delivered before it
/// (`nil` for the first, current, selection). Otherwise as ``StoreValues``.
///
/// ```swift
/// for await change in store.changes(of: { $0.todos.count }) {
///     badge.animate(from: change.previous ?? 0, to: change.value)
/// }
/// ```
///
/// - Complexity: as ``StoreValues``.
public struct StoreSelectionChanges<State, Value: Equatable>: AsyncSequence, Sendable {
    public typealias Element = SelectionChange<Value>
    public typealias Failure = Never

    let _subscribe: _SelectionSubscribe<State, Value>

    /// Creates an independent iterator; it subscribes on its first `next()`.
    ///
    /// - Complexity: O(1).
    public func makeAsyncIterator() -> Iterator {
        Iterator(_iteration: _SelectionIteration(subscribe: _subscribe))
    }

    /// An iterator of ``StoreSelectionChanges``.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = SelectionChange<Value>
        public typealias Failure = Never

        var _iteration: _SelectionIteration<State, Value>

        /// The next change: the current selection first (`previous` is
        /// `nil`), then the latest selection that differs from the last
        /// delivered, with that one as `previous`; `nil` once the task is
        /// cancelled or the store is gone.
        ///
        /// - Complexity: O(1), plus one `==` when the iterator skipped
        ///   selections.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> SelectionChange<Value>? {
            await _iteration.next(isolation: actor)
        }

        /// The next change (see ``next(isolation:)``).
        ///
        /// - Complexity: as ``next(isolation:)``.
        public mutating func next() async -> SelectionChange<Value>? {
            await next(isolation: nil)
        }
    }
}

extension Store {
    /// A selection of the state as an asynchronous sequence: the current
    /// selection, then each new one when it changes (decided by a
    /// ``StateConsumer``: on versioned state, only drains that wrote what
    /// `selector` read run it). Latest-value. See ``StoreValues``.
    ///
    /// ```swift
    /// for await todo in store.values({ $0.todos[id: id] }) { cell.render(todo) }
    /// ```
    ///
    /// - Parameter selector: Selects the value; it runs on the draining
    ///   thread, and must read nothing but the state to be skipped soundly
    ///   (see ``StateConsumer``).
    /// - Complexity: O(1) to make; each iterator subscribes on its first
    ///   `next()`, then costs one consumer's consume per published batch.
    public func values<Value: Equatable>(_ selector: @escaping @Sendable (State) -> Value) -> StoreValues<State, Value> {
        StoreValues(_subscribe: _selectionSubscribe(selector))
    }

    /// A selection of the state as an asynchronous sequence of changes: the
    /// current selection (with no previous one), then each new one with the
    /// one delivered before it. Otherwise as ``values(_:)``. See
    /// ``StoreSelectionChanges``.
    ///
    /// - Complexity: as ``values(_:)``.
    public func changes<Value: Equatable>(of selector: @escaping @Sendable (State) -> Value) -> StoreSelectionChanges<State, Value> {
        StoreSelectionChanges(_subscribe: _selectionSubscribe(selector))
    }

    /// How an iteration of `selector` subscribes: a consumer of the
    /// selection, fed by a subscriber of the store.
    func _selectionSubscribe<Value: Equatable>(_ selector: @escaping @Sendable (State) -> Value) -> _SelectionSubscribe<State, Value> {
        _SelectionSubscribe { [weak self] channel in
            guard let self else { return false }
            self._subscribeSelection(selector, channel)
            return true
        }
    }

    /// Subscribes `channel` to the changes of `selector`'s selection: a
    /// consumer (kept alive by the channel) decides them, fed by a
    /// subscriber (that holds the consumer weakly); the current selection is
    /// offered by its first consume.
    func _subscribeSelection<Value: Equatable>(
        _ selector: @escaping @Sendable (State) -> Value, _ channel: _LatestValueChannel<_SelectionPending<Value>>
    ) {
        let consumer = StateConsumer<State>()
        consumer.add(selector) { [weak channel] (_: Value?, new: Value) in
            channel?.offer { pending in
                if pending == nil {
                    pending = _SelectionPending(value: new, skipped: false)
                } else {
                    pending = _SelectionPending(value: new, skipped: true)
                }
            }
        }
        if _rootVersion != nil {
            // Versioned state: through the store's wake-up hub, which calls
            // the consumer only when a publish wrote what its selector read.
            let subscription = consumer._connectThroughHub(
                self, on: .drainThread, read: { [unowned self] in self._unobservedState },
                onStoreGone: { [weak channel] in channel?.finish() })
            channel.attach(retaining: consumer) { subscription.cancel() }
            return
        }
        let feed = _StoreFeed<State>(
            deliver: { [weak consumer] state in consumer?.consume(newState: state) },
            onRelease: { [weak channel] in channel?.finish() })
        let entry = _addSubscriber(thread: .drainThread, object: nil) { state in
            feed.deliver(state)
            return true
        }!
        channel.attach(retaining: consumer) { [weak self, weak entry] in
            guard let self, let entry else { return }
            self._removeSequenceSubscriber(entry, countsAsCauseReceiver: false)
        }
        // NB: as `StateConsumer.connect(to:)`: the current state is read once
        // the consumer holds its turn, so no delivery queued meanwhile is
        // consumed before it; read without registering an Observation access.
        consumer._consumeLatest { self._unobservedState }
    }
}

/// Subscribes a selection iteration's channel to its store; `false` when the
/// store is gone.
///
/// NB: `@unchecked Sendable`: `body` captures only a weak store and a
/// `@Sendable` selector; it is not declared `@Sendable` because it calls a
/// method generic over `Value`, whose metatype Swift does not know to be
/// sendable.
@usableFromInline
internal struct _SelectionSubscribe<State, Value: Equatable>: @unchecked Sendable {
    let body: (_LatestValueChannel<_SelectionPending<Value>>) -> Bool

    init(_ body: @escaping (_LatestValueChannel<_SelectionPending<Value>>) -> Bool) {
        self.body = body
    }
}

/// A selection offered to an iteration and not taken yet.
@usableFromInline
internal struct _SelectionPending<Value> {
    var value: Value
    /// Whether it replaced another one not taken: the iterator then compares
    /// it with the last selection it delivered (the selection may have come
    /// back to it).
    var skipped: Bool
}

/// The iteration shared by ``StoreValues`` and ``StoreSelectionChanges``:
/// the channel, and the last selection delivered.
@usableFromInline
internal struct _SelectionIteration<State, Value: Equatable> {
    let subscribe: _SelectionSubscribe<State, Value>
    let channel = _LatestValueChannel<_SelectionPending<Value>>()
    var started = false
    var last: Value?

    init(subscribe: _SelectionSubscribe<State, Value>) {
        self.subscribe = subscribe
    }

    mutating func next(isolation actor: isolated (any Actor)?) async -> SelectionChange<Value>? {
        if !started {
            started = true
            if Task.isCancelled {
                channel.finish()
                return nil
            }
            guard subscribe.body(channel) else {
                channel.finish()
                return nil
            }
        }
        while let pending = await channel.next(isolation: actor) {
            // NB: a selection that replaced others while the iterator was
            // away can equal the last one delivered (A, B, A): no change.
            // Without skipping, the consumer's previous selection is the
            // last one delivered, and it already found them different.
            if pending.skipped, let last, last == pending.value { continue }
            let change = SelectionChange(previous: last, value: pending.value)
            last = pending.value
            return change
        }
        return nil
    }
}

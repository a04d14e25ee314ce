/// The states of a store as an asynchronous sequence, with latest-value
/// semantics (as Observation's `Observations`): the first element is the
/// current state; after it, each state the store publishes. An iterator that
/// falls behind skips intermediate states but always gets the latest one.
///
/// ```swift
/// for await state in store.states {
///     render(state)
/// }
/// ```
///
/// Each iterator is independent: it subscribes to the store on its first
/// `next()`, and unsubscribes when its iteration ends. The iteration ends
/// (`next()` returns `nil`) when the iterating task is cancelled, waiting in
/// `next()` or not, or when the store is deallocated: the sequence and its
/// iterators hold the store weakly. Dropping an iterator unsubscribes it too.
///
/// - Complexity: per published batch and iterator, O(1) on the draining
///   thread (the state replaces the one not yet taken), plus resuming the
///   iterating task when it waits. The memory held is one state per iterator.
public struct StoreStates<State>: AsyncSequence, Sendable {
    public typealias Element = State
    public typealias Failure = Never

    /// Subscribes a channel to the store and returns the current state, or
    /// `nil` when the store is gone.
    let _subscribe: @Sendable (_LatestValueChannel<State>) -> State?

    init(_subscribe: @escaping @Sendable (_LatestValueChannel<State>) -> State?) {
        self._subscribe = _subscribe
    }

    /// Creates an independent iterator; it subscribes on its first `next()`.
    ///
    /// - Complexity: O(1).
    public func makeAsyncIterator() -> Iterator {
        Iterator(subscribe: _subscribe)
    }

    /// An iterator of ``StoreStates``.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = State
        public typealias Failure = Never

        let _subscribe: @Sendable (_LatestValueChannel<State>) -> State?
        let _channel = _LatestValueChannel<State>()
        var _started = false

        init(subscribe: @escaping @Sendable (_LatestValueChannel<State>) -> State?) {
            _subscribe = subscribe
        }

        /// The next state: the current one first, then the latest published
        /// one not yet delivered (waiting for it if there is none); `nil`
        /// once the task is cancelled or the store is gone.
        ///
        /// - Complexity: O(1).
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> State? {
            if !_started {
                _started = true
                if Task.isCancelled {
                    _channel.finish()
                    return nil
                }
                guard let current = _subscribe(_channel) else {
                    _channel.finish()
                    return nil
                }
                return current
            }
            return await _channel.next(isolation: actor)
        }

        /// The next state (see ``next(isolation:)``).
        ///
        /// - Complexity: O(1).
        public mutating func next() async -> State? {
            await next(isolation: nil)
        }
    }
}

extension Store {
    /// The store's states as an asynchronous sequence: the current state,
    /// then every published state, latest-value (an iterator that falls
    /// behind gets the latest state, skipping those in between). See
    /// ``StoreStates``.
    ///
    /// ```swift
    /// for await state in store.states { render(state) }
    /// ```
    ///
    /// - Complexity: O(1) to make; each iterator subscribes on its first
    ///   `next()` (O(subscribers)) and costs O(1) per published batch.
    public var states: StoreStates<State> {
        let store = _UncheckedWeak(self)
        return StoreStates { channel in
            store.object?._subscribeStates(channel)
        }
    }

    /// Subscribes `channel` to the published states; returns the current one.
    func _subscribeStates(_ channel: _LatestValueChannel<State>) -> State {
        let feed = _StoreFeed<State>(
            deliver: { [weak channel] state in channel?.offer { $0 = state } },
            onRelease: { [weak channel] in channel?.finish() })
        let (entry, current) = _addSubscriberReadingState(countsAsCauseReceiver: false) { state in
            feed.deliver(state)
            return true
        }
        channel.attach(retaining: nil) { [weak self, weak entry] in
            guard let self, let entry else { return }
            self._removeSequenceSubscriber(entry, countsAsCauseReceiver: false)
        }
        return current
    }
}

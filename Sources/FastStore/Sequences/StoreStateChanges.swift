/// The states of a store with the actions that produced them, as an
/// asynchronous sequence with latest-value semantics: the first element is
/// the current state (with no actions); after it, the latest published state
/// with every action reduced since the previous element, in order. An
/// iterator that falls behind skips intermediate states but loses none of
/// their actions.
///
/// ```swift
/// for await change in store.stateChanges {
///     print(change.actions, "→", change.state)
/// }
/// ```
///
/// Iterators are independent, hold the store weakly, and end as those of
/// ``StoreStates`` do (cancellation, the store's deallocation, being dropped).
///
/// - Complexity: while an iterator is subscribed, each batch copies its
///   actions once (shared by every receiver of causes); per batch and
///   iterator, O(batch size) to append them to those not yet taken.
public struct StoreStateChanges<State, Action>: AsyncSequence, Sendable {
    public typealias Element = StoreChange<State, Action>
    public typealias Failure = Never

    let _subscribe: @Sendable (_LatestValueChannel<StoreChange<State, Action>>) -> State?

    init(_subscribe: @escaping @Sendable (_LatestValueChannel<StoreChange<State, Action>>) -> State?) {
        self._subscribe = _subscribe
    }

    /// Creates an independent iterator; it subscribes on its first `next()`.
    ///
    /// - Complexity: O(1).
    public func makeAsyncIterator() -> Iterator {
        Iterator(subscribe: _subscribe)
    }

    /// An iterator of ``StoreStateChanges``.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = StoreChange<State, Action>
        public typealias Failure = Never

        let _subscribe: @Sendable (_LatestValueChannel<StoreChange<State, Action>>) -> State?
        let _channel = _LatestValueChannel<StoreChange<State, Action>>()
        var _started = false

        init(subscribe: @escaping @Sendable (_LatestValueChannel<StoreChange<State, Action>>) -> State?) {
            _subscribe = subscribe
        }

        /// The next change: the current state first (no actions), then the
        /// latest published state with the actions reduced since the
        /// previous element; `nil` once the task is cancelled or the store
        /// is gone.
        ///
        /// - Complexity: O(1).
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> StoreChange<State, Action>? {
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
                return StoreChange(state: current, actions: [])
            }
            return await _channel.next(isolation: actor)
        }

        /// The next change (see ``next(isolation:)``).
        ///
        /// - Complexity: O(1).
        public mutating func next() async -> StoreChange<State, Action>? {
            await next(isolation: nil)
        }
    }
}

extension Store {
    /// The store's states with their causes, as an asynchronous sequence:
    /// the current state, then the latest published state with every action
    /// reduced since the previous element. See ``StoreStateChanges``.
    ///
    /// - Complexity: O(1) to make; each iterator subscribes on its first
    ///   `next()` (O(subscribers)) and makes the store copy each batch's
    ///   actions while it lasts.
    public var stateChanges: StoreStateChanges<State, Action> {
        let store = _UncheckedWeak(self)
        return StoreStateChanges { channel in
            store.object?._subscribeStateChanges(channel)
        }
    }

    /// Subscribes `channel` to the published states and their causes;
    /// returns the current state.
    func _subscribeStateChanges(_ channel: _LatestValueChannel<StoreChange<State, Action>>) -> State {
        let owned = _owned
        let feed = _StoreFeed<State>(
            deliver: { [weak channel] state in
                guard let channel else { return }
                let actions = _causes(of: owned)
                channel.offer { pending in
                    if pending == nil {
                        pending = StoreChange(state: state, actions: actions)
                    } else {
                        pending!.state = state
                        pending!.actions.append(contentsOf: actions)
                    }
                }
            },
            onRelease: { [weak channel] in channel?.finish() })
        let (entry, current) = _addSubscriberReadingState(countsAsCauseReceiver: true) { state in
            feed.deliver(state)
            return true
        }
        channel.attach(retaining: nil) { [weak self, weak entry] in
            guard let self, let entry else { return }
            self._removeSequenceSubscriber(entry, countsAsCauseReceiver: true)
        }
        return current
    }
}

/// The consuming turn of a ``StateConsumer``, as a pure state machine: at
/// most one thread consumes at a time, and consumes that arrive meanwhile
/// (from a callback, or from another thread) are queued and delivered by
/// that thread, in arrival order.
///
/// Every method runs under the consumer's lock and tells the caller what to
/// do, as `_DispatchQueueState` does for the store.
@usableFromInline
internal struct _ConsumeTurn<Item> {
    /// Whether a thread holds the turn.
    @usableFromInline var isTaken = false
    /// Consumes waiting for the turn, oldest first.
    @usableFromInline var pending: [Item] = []
    @usableFromInline var pendingStart = 0

    @inlinable init() {}

    /// Takes the turn for `item` (returns `true`: the caller consumes it
    /// now), or queues `item` behind the running consume (returns `false`).
    @inlinable
    mutating func arrive(_ item: Item) -> Bool {
        if isTaken {
            pending.append(item)
            return false
        }
        isTaken = true
        return true
    }

    /// Takes the turn with nothing to consume, when it is free.
    @inlinable
    mutating func takeIfFree() -> Bool {
        if isTaken { return false }
        isTaken = true
        return true
    }

    /// The next queued consume for the turn's holder, or `nil` after giving
    /// up the turn because nothing is queued.
    @inlinable
    mutating func next() -> Item? {
        guard pendingStart < pending.count else {
            pending._removeAllKeepingCapacity()
            pendingStart = 0
            isTaken = false
            return nil
        }
        let item = pending[pendingStart]
        pendingStart += 1
        return item
    }
}

/// A consume waiting for the turn.
@usableFromInline
internal enum _PendingConsume<State> {
    /// A state to consume.
    case state(State)
    /// The latest state of a source, read when its turn comes.
    case read(() -> State)
    /// The latest state of a source and its number, read when its turn
    /// comes (see `StateConsumer._consumeLatestTagged`).
    case readTagged(() -> (State, UInt64))
}

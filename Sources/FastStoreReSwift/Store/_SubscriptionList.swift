/// A store's subscription boxes, in subscription order, with the live box of
/// each subscriber found by its identity. A plain value: the store changes
/// it under its lock.
///
/// A tracked box (`SubscriptionBox.tracked`) is not in `boxes`: the store
/// does not deliver to it, its consumer does. It is in `live` until it is
/// replaced or removed, or its subscriber is found gone: by the box, at a
/// change of its selection, or by a sweep of the tracked boxes each time
/// their number doubles.
///
/// Replacing or removing a subscriber cancels its box and leaves it in
/// `boxes` until more than half of them are cancelled, then drops them all:
/// amortized O(1) per change, where removing from the middle of the array
/// each time would make subscribing n subscribers O(n²).
@usableFromInline
struct _SubscriptionList<State> {
    /// Every box not yet dropped, in subscription order; some may be
    /// cancelled (a drain iterating a copy skips them).
    @usableFromInline init() {}

    private(set) var boxes: [SubscriptionBox<State>] = []
    /// The live box of each subscriber.
    private var live: [ObjectIdentifier: SubscriptionBox<State>] = [:]
    private var cancelledCount = 0

    /// The live boxes, in subscription order.
    ///
    /// - Complexity: O(boxes).
    var liveBoxes: [SubscriptionBox<State>] {
        boxes.filter { !$0.isCancelled } + live.values.filter { $0.tracked != nil && $0.subscriber != nil }
    }
    /// How many tracked boxes `live` holds, and how many it held after the
    /// last sweep.
    private var trackedCount = 0
    private var trackedAfterSweep = 0

    /// Adds `box`, replacing (cancelling) the subscriber's previous one.
    ///
    /// - Complexity: amortized O(1).
    mutating func insert(_ box: SubscriptionBox<State>) {
        if let previous = live.updateValue(box, forKey: box.subscriberID) {
            cancel(previous)
        }
        if box.tracked == nil {
            boxes.append(box)
        } else {
            trackedCount += 1
            if trackedCount > 2 * Swift.max(16, trackedAfterSweep) { sweepTracked() }
        }
    }

    /// Drops the tracked boxes whose subscriber is gone.
    ///
    /// - Complexity: O(live boxes).
    private mutating func sweepTracked() {
        for (id, box) in live where box.tracked != nil && box.subscriber == nil {
            live[id] = nil
            cancel(box)
        }
        trackedAfterSweep = trackedCount
    }

    /// Cancels and forgets the box of `subscriber`, if any.
    ///
    /// - Complexity: amortized O(1).
    mutating func remove(subscriber: AnyObject) {
        if let box = live.removeValue(forKey: ObjectIdentifier(subscriber)) {
            cancel(box)
        }
    }

    /// Cancels and forgets `box` if it is still its subscriber's live box
    /// (a box whose subscriber was deallocated).
    ///
    /// - Complexity: amortized O(1).
    mutating func remove(_ box: SubscriptionBox<State>) {
        if live[box.subscriberID] === box {
            live[box.subscriberID] = nil
            cancel(box)
        }
    }

    private mutating func cancel(_ box: SubscriptionBox<State>) {
        box.cancel()
        if box.tracked != nil {
            trackedCount -= 1
            return
        }
        cancelledCount += 1
        if cancelledCount * 2 > boxes.count {
            boxes.removeAll { $0.isCancelled }
            cancelledCount = 0
        }
    }
}

/// A store's subscription boxes, in subscription order, with the live box of
/// each subscriber found by its identity. A plain value: the store changes
/// it under its lock.
///
/// Replacing or removing a subscriber cancels its box and leaves it in
/// `boxes` until more than half of them are cancelled, then drops them all:
/// amortized O(1) per change, where removing from the middle of the array
/// each time would make subscribing n subscribers O(n²).
struct _SubscriptionList<State> {
    /// Every box not yet dropped, in subscription order; some may be
    /// cancelled (a drain iterating a copy skips them).
    private(set) var boxes: [SubscriptionBox<State>] = []
    /// The live box of each subscriber.
    private var live: [ObjectIdentifier: SubscriptionBox<State>] = [:]
    private var cancelledCount = 0

    /// The live boxes, in subscription order.
    ///
    /// - Complexity: O(boxes).
    var liveBoxes: [SubscriptionBox<State>] { boxes.filter { !$0.isCancelled } }

    /// Adds `box`, replacing (cancelling) the subscriber's previous one.
    ///
    /// - Complexity: amortized O(1).
    mutating func insert(_ box: SubscriptionBox<State>) {
        if let previous = live.updateValue(box, forKey: box.subscriberID) {
            cancel(previous)
        }
        boxes.append(box)
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
        cancelledCount += 1
        if cancelledCount * 2 > boxes.count {
            boxes.removeAll { $0.isCancelled }
            cancelledCount = 0
        }
    }
}

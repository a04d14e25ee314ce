/// The dispatch queue and drain bookkeeping of a ``Store``, as a plain state
/// machine: every method is called with the store's lock held, touches only
/// this struct, and tells the caller what to do next. The lock and the calls
/// into user code live in `Store`.
///
/// The queue holds actions and *markers* (a store's history moves): a marker
/// is queued behind the actions pending when it was asked for and taken in
/// their place, so a marker never lands between two actions queued together
/// (`enqueue(contentsOf:)`). Every take of pending actions goes through
/// ``takeNext(into:)``, the one place that cuts the queue at the first
/// marker.
@usableFromInline
internal struct _DispatchQueueState<Action, Marker> {
    /// Actions dispatched and not yet taken by a drain, in dispatch order.
    @usableFromInline var pending: [Action] = []
    /// Markers queued behind `pending`, in order, each after the first
    /// `position` pending actions (positions never decrease along the array).
    @usableFromInline var markers: [(position: Int, marker: Marker)] = []
    /// Whether some thread is draining. At most one drain runs at a time.
    @usableFromInline var isDraining = false
    /// An owned store's (see ``MainStore``): whether a drain was scheduled on
    /// the owning thread for work queued from elsewhere and has not run yet.
    /// Work is pending while no drain runs only when this is set.
    @usableFromInline var ownerDrainScheduled = false
    /// Continuations of `flush()` callers, resumed when the queue goes idle.
    @usableFromInline var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Number of actions enqueued so far (diagnostics and tests).
    @usableFromInline var enqueuedCount: UInt64 = 0

    /// What ``takeNext(into:)`` took.
    @usableFromInline
    enum Taken {
        /// Pending actions, appended to the batch.
        case actions
        /// A marker, to apply before any action queued after it.
        case marker(Marker)
        /// Nothing: the queue is empty.
        case nothing
    }

    @inlinable init() {
        pending.reserveCapacity(64)
    }

    /// Enqueues `action`, or, when no drain is running, starts one and hands
    /// the action straight to the caller. Returns `true` when the caller must
    /// drain, starting with `action` (which is then not queued: nothing is
    /// pending while no drain runs, so it is first in order anyway).
    ///
    /// - Complexity: amortized O(1).
    @inlinable
    mutating func enqueue(_ action: Action) -> Bool {
        enqueuedCount &+= 1
        if isDraining {
            pending.append(action)
            return false
        }
        isDraining = true
        return true
    }

    /// Enqueues `actions` together, in order. Returns `true` when the caller
    /// must drain (and take them with ``takeNext(into:)``).
    ///
    /// - Complexity: O(`actions.count`).
    @inlinable
    mutating func enqueue<S: Sequence>(contentsOf actions: S) -> Bool where S.Element == Action {
        let before = pending.count
        pending.append(contentsOf: actions)
        enqueuedCount &+= UInt64(pending.count - before)
        if isDraining || pending.count == before { return false }
        isDraining = true
        return true
    }

    /// Enqueues `marker` behind every pending action, or, when no drain is
    /// running, starts one and hands the marker straight to the caller.
    /// Returns `true` when the caller must drain, starting with `marker`.
    ///
    /// - Complexity: amortized O(1).
    @inlinable
    mutating func enqueue(marker: Marker) -> Bool {
        if isDraining {
            markers.append((pending.count, marker))
            return false
        }
        isDraining = true
        return true
    }

    /// What an owned store's owning thread must do with the action it
    /// enqueued (see ``enqueueOnOwner(_:)``).
    @usableFromInline
    enum OwnerClaim {
        /// A drain runs (up this thread's stack): it takes the action.
        case queued
        /// Drain, starting with the action (not queued: nothing was).
        case drainFirst
        /// Drain the queue: work queued from other threads waits for a
        /// scheduled drain, and the action was queued behind it.
        case drainQueue
    }

    /// An owned store, on its owning thread: enqueues `action`, or starts a
    /// drain, which takes the work other threads queued first when some
    /// waits for its scheduled drain (the owning thread does not wait for
    /// that drain: it runs it now, in order).
    ///
    /// - Complexity: amortized O(1).
    @inlinable
    mutating func enqueueOnOwner(_ action: Action) -> OwnerClaim {
        enqueuedCount &+= 1
        if isDraining {
            pending.append(action)
            return .queued
        }
        isDraining = true
        if pending.isEmpty && markers.isEmpty { return .drainFirst }
        pending.append(action)
        return .drainQueue
    }

    /// An owned store, off its owning thread: queues `actions`, in order.
    /// Returns `true` when the caller must schedule a drain on the owning
    /// thread (none runs and none is scheduled).
    ///
    /// - Complexity: O(`actions.count`).
    @inlinable
    mutating func enqueueForOwner<S: Sequence>(contentsOf actions: S) -> Bool where S.Element == Action {
        let before = pending.count
        pending.append(contentsOf: actions)
        enqueuedCount &+= UInt64(pending.count - before)
        return scheduleOwnerDrainIfNeeded()
    }

    /// An owned store, off its owning thread: queues `marker` behind every
    /// pending action. Returns `true` when the caller must schedule a drain
    /// on the owning thread.
    @inlinable
    mutating func enqueueForOwner(marker: Marker) -> Bool {
        markers.append((pending.count, marker))
        return scheduleOwnerDrainIfNeeded()
    }

    @inlinable
    mutating func scheduleOwnerDrainIfNeeded() -> Bool {
        if isDraining || ownerDrainScheduled || (pending.isEmpty && markers.isEmpty) { return false }
        ownerDrainScheduled = true
        return true
    }

    /// An owned store, on its owning thread: claims the drain for the work
    /// queued from elsewhere (a scheduled drain running, or the owning
    /// thread draining it early). Returns `false` when a drain runs or
    /// nothing is queued.
    @inlinable
    mutating func claimOwnerDrain() -> Bool {
        ownerDrainScheduled = false
        if isDraining || (pending.isEmpty && markers.isEmpty) { return false }
        isDraining = true
        return true
    }

    /// Takes what comes next: the first marker when no action is queued
    /// before it; else the pending actions up to the first marker (all of
    /// them when none is queued), appended to `batch`.
    ///
    /// - Complexity: O(1) with no marker queued (the buffers are swapped when
    ///   `batch` is empty); else O(`pending.count` + `markers.count`).
    @inlinable
    mutating func takeNext(into batch: inout [Action]) -> Taken {
        if markers.isEmpty {
            if pending.isEmpty { return .nothing }
            if batch.isEmpty {
                swap(&pending, &batch)
            } else {
                batch.append(contentsOf: pending)
                pending.removeAll(keepingCapacity: true)
            }
            return .actions
        }
        let position = markers[0].position
        if position == 0 { return .marker(markers.removeFirst().marker) }
        batch.append(contentsOf: pending[..<position])
        pending.removeFirst(position)
        for k in markers.indices { markers[k].position &-= position }
        return .actions
    }

    /// Ends the drain if nothing is queued. Returns the waiters to resume,
    /// or `nil` when the drain must go on.
    @inlinable
    mutating func finishIfIdle() -> [CheckedContinuation<Void, Never>]? {
        guard pending.isEmpty && markers.isEmpty else { return nil }
        isDraining = false
        if idleWaiters.isEmpty { return [] }
        let waiters = idleWaiters
        idleWaiters = []
        return waiters
    }

    /// Whether the queue is idle: nothing queued and no drain running.
    @inlinable var isIdle: Bool { !isDraining && pending.isEmpty && markers.isEmpty }

    #if FASTSTORE_INTERNAL_CHECKS
    /// Checks the queue's invariants: nothing queued unless a drain runs;
    /// markers' positions in order and within the pending actions.
    @usableFromInline
    func _invariantCheck() {
        precondition(isDraining || ownerDrainScheduled || (pending.isEmpty && markers.isEmpty), "queued work with no drain running or scheduled")
        var last = 0
        for entry in markers {
            precondition(entry.position >= last && entry.position <= pending.count, "a marker's position out of order")
            last = entry.position
        }
    }
    #endif
}

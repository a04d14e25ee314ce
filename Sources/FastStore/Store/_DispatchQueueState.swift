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
        precondition(isDraining || (pending.isEmpty && markers.isEmpty), "queued work with no drain")
        var last = 0
        for entry in markers {
            precondition(entry.position >= last && entry.position <= pending.count, "a marker's position out of order")
            last = entry.position
        }
    }
    #endif
}

/// The dispatch queue and drain bookkeeping of a ``Store``, as a plain state
/// machine: every method is called with the store's lock held, touches only
/// this struct, and tells the caller what to do next. The lock and the calls
/// into user code live in `Store`.
@usableFromInline
internal struct _DispatchQueueState<Action> {
    /// Actions dispatched and not yet taken by a drain, in dispatch order.
    @usableFromInline var pending: [Action] = []
    /// Whether some thread is draining. At most one drain runs at a time.
    @usableFromInline var isDraining = false
    /// Continuations of `flush()` callers, resumed when the queue goes idle.
    @usableFromInline var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// Number of actions enqueued so far (diagnostics and tests).
    @usableFromInline var enqueuedCount: UInt64 = 0

    @inlinable init() {
        pending.reserveCapacity(64)
    }

    /// Enqueues `action`, or, when no drain is running, starts one and hands
    /// the action straight to the caller. Returns `true` when the caller must
    /// drain, starting with `action` (which is then not queued: nothing is
    /// pending while no drain runs, so it is first in order anyway).
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

    /// Enqueues `actions` together, in order. Same result as `enqueue`.
    @inlinable
    mutating func enqueue<S: Sequence>(contentsOf actions: S) -> Bool where S.Element == Action {
        let before = pending.count
        pending.append(contentsOf: actions)
        enqueuedCount &+= UInt64(pending.count - before)
        if isDraining || pending.count == before { return false }
        isDraining = true
        return true
    }

    /// Moves every pending action into `batch` (which must be empty), keeping
    /// both buffers' capacity. Returns `false` when nothing was pending.
    @inlinable
    mutating func takePending(into batch: inout [Action]) -> Bool {
        if pending.isEmpty { return false }
        swap(&pending, &batch)
        return true
    }

    /// Ends the drain if nothing is pending. Returns the waiters to resume,
    /// or `nil` when the drain must go on.
    @inlinable
    mutating func finishIfIdle() -> [CheckedContinuation<Void, Never>]? {
        guard pending.isEmpty else { return nil }
        isDraining = false
        if idleWaiters.isEmpty { return [] }
        let waiters = idleWaiters
        idleWaiters = []
        return waiters
    }

    /// Whether the queue is idle: nothing pending and no drain running.
    @inlinable var isIdle: Bool { !isDraining && pending.isEmpty }
}

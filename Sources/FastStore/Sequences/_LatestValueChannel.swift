/// The latest-value hand-off between a store's drain (the producer) and the
/// task iterating one of its sequences: one slot, not a buffer.
///
/// The producer merges each new element into the slot (`offer`): a state
/// replaces the one not yet taken, actions are appended to those not yet
/// taken. The iterating task takes the slot (`next`), or waits for it. So a
/// slow iterator skips intermediate elements but always gets the last one,
/// and the memory held is one element whatever the rate.
///
/// `finish()` ends the iteration: on cancellation of the iterating task, when
/// the store goes away (`_StoreFeed`), or when the iterator is dropped
/// (`deinit`); it resumes a waiting `next` with `nil` and runs the
/// `onFinish` action once (cancelling the store subscription).
///
/// NB: `@unchecked Sendable`: every mutable field is guarded by `lock`. The
/// waiting task's continuation is resumed outside the lock.
@usableFromInline
internal final class _LatestValueChannel<Pending>: @unchecked Sendable {
    private let lock = _Lock()
    /// Guarded by `lock`: what the producer offered and the iterator did not
    /// take yet.
    private var pending: Pending?
    /// Guarded by `lock`: the iterating task, while it waits.
    private var waiter: UnsafeContinuation<_UncheckedSendable<Pending>?, Never>?
    /// Guarded by `lock`: whether the iteration ended.
    private var finished = false
    /// Guarded by `lock`: run once when the iteration ends.
    private var onFinish: (() -> Void)?
    /// Guarded by `lock`: what the subscription needs alive while the
    /// iteration lasts (a `StateConsumer`), released when it ends.
    private var retained: AnyObject?

    init() {}

    deinit {
        // NB: the iterator was dropped: no task can be waiting (a waiting
        // `next` holds the channel).
        onFinish?()
    }

    /// Whether the iteration ended.
    var isFinished: Bool { lock.withLock { finished } }

    /// Sets what to run when the iteration ends, and what to keep alive
    /// until then; runs it at once if the iteration already ended.
    func attach(retaining object: AnyObject?, onFinish body: @escaping () -> Void) {
        lock.lock()
        if finished {
            lock.unlock()
            body()
            return
        }
        onFinish = body
        retained = object
        lock.unlock()
    }

    /// Merges an element into the slot, and hands the slot to the waiting
    /// task, if any. Does nothing once the iteration ended.
    ///
    /// - Complexity: O(1) plus `merge`.
    func offer(_ merge: (inout Pending?) -> Void) {
        lock.lock()
        guard !finished else {
            lock.unlock()
            return
        }
        merge(&pending)
        guard let waiter, let value = pending else {
            lock.unlock()
            return
        }
        self.waiter = nil
        pending = nil
        lock.unlock()
        waiter.resume(returning: _UncheckedSendable(value))
    }

    /// Ends the iteration: a waiting task gets `nil`, later offers are
    /// dropped, `onFinish` runs once. Safe from any thread, more than once.
    func finish() {
        lock.lock()
        if finished {
            lock.unlock()
            return
        }
        finished = true
        pending = nil
        let waiter = self.waiter
        self.waiter = nil
        let onFinish = self.onFinish
        self.onFinish = nil
        let retained = self.retained
        self.retained = nil
        lock.unlock()
        waiter?.resume(returning: nil)
        onFinish?()
        // NB: released here, outside the lock.
        _ = retained
    }

    /// Takes the slot, waiting for the producer if it is empty; `nil` once
    /// the iteration ended, or when the calling task is cancelled (which
    /// ends it).
    ///
    /// - Complexity: O(1).
    func next(isolation actor: isolated (any Actor)?) async -> Pending? {
        if Task.isCancelled {
            finish()
            return nil
        }
        lock.lock()
        if let value = pending {
            pending = nil
            lock.unlock()
            return value
        }
        if finished {
            lock.unlock()
            return nil
        }
        lock.unlock()
        let taken = await withTaskCancellationHandler {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<_UncheckedSendable<Pending>?, Never>) in
                lock.lock()
                if let value = pending {
                    pending = nil
                    lock.unlock()
                    continuation.resume(returning: _UncheckedSendable(value))
                } else if finished {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            finish()
        }
        return taken?.value
    }
}

/// What a sequence's store subscriber holds: delivers the store's states to
/// an iteration, and ends the iteration when it is released, which happens
/// when the subscription is removed or the store is deallocated (its
/// subscriber list goes with it). The feed holds the iteration weakly, so a
/// dropped iterator is not kept alive by the store.
@usableFromInline
internal final class _StoreFeed<State>: @unchecked Sendable {
    let deliver: (State) -> Void
    private let onRelease: () -> Void

    init(deliver: @escaping (State) -> Void, onRelease: @escaping () -> Void) {
        self.deliver = deliver
        self.onRelease = onRelease
    }

    deinit { onRelease() }
}

/// What the saver does next, decided from what was published, what was
/// saved, who waits, and the clock: a pure state machine, kept apart from
/// the lock and the thread that run it (``_Saver``).
///
/// Batches are numbered from 1 in the order the store published them. Only
/// the newest unsaved state is kept: a write saves the patch from the last
/// saved state to it, so batches that pile up while a write runs are saved
/// together (the file always holds the state after some batch).
struct _SaveMachine<State> {
    typealias Resume = (PersistentStateError?) -> Void

    /// The last batch number handed to ``offer(_:)``.
    private(set) var published: UInt64 = 0
    /// The highest batch number committed to the file.
    private(set) var saved: UInt64 = 0
    /// The newest state not saved yet, and its number.
    private var pending: (state: State, number: UInt64)?
    /// When the oldest batch in `pending` was published (for grouping).
    private var pendingSince: ContinuousClock.Instant?
    private(set) var writing = false
    /// The error of the last write, until one succeeds.
    private(set) var failure: PersistentStateError?
    /// No write before this (after a failure), unless someone waits.
    private var retryAt: ContinuousClock.Instant?
    private(set) var closing = false
    /// A write failed after ``close()``: what is pending stays unsaved.
    private(set) var abandoned = false
    private var waiters: [(target: UInt64, resume: Resume)] = []
    /// Work to run on the saver's thread between two writes, in order.
    private var jobs: [() -> Void] = []
    /// How many of `waiters` were there when the current write began.
    private var waitersBeforeWrite = 0

    let durability: PersistenceOptions.Durability
    let retryDelay: Duration

    init(durability: PersistenceOptions.Durability, retryDelay: Duration) {
        self.durability = durability
        self.retryDelay = retryDelay
    }

    /// A published state: it replaces any pending one. Returns its number.
    ///
    /// - Complexity: O(1).
    mutating func offer(_ state: consuming State, at now: @autoclosure () -> ContinuousClock.Instant) -> UInt64 {
        published &+= 1
        // NB: the clock is read only for the first batch of a group: a
        // batch that replaces a pending one (most, when batches come fast)
        // reads none.
        if pending == nil { pendingSince = now() }
        pending = (state, published)
        return published
    }

    /// What the saver does now.
    enum Step {
        /// Write `state`, batch `number`.
        case write(State, number: UInt64)
        /// Run a job handed to ``enqueue(_:)``.
        case run(() -> Void)
        /// Sleep until the instant (`nil`: until woken).
        case wait(until: ContinuousClock.Instant?)
        /// Closing, with nothing left to write: end the thread.
        case stop
    }

    /// The next step at `now`.
    mutating func next(at now: ContinuousClock.Instant) -> Step {
        if writing { return .wait(until: nil) }
        // NB: before any write: a job reads what is saved now, and is not
        // held back by a write that waits (grouping, a retry delay).
        if !jobs.isEmpty { return .run(jobs.removeFirst()) }
        if closing && abandoned { return .stop }
        guard let work = pending else { return closing ? .stop : .wait(until: nil) }
        let urgent = closing || !waiters.isEmpty
        if !urgent, let retryAt, now < retryAt { return .wait(until: retryAt) }
        if !urgent, case .grouped(let interval) = durability, let since = pendingSince, now < since + interval {
            return .wait(until: since + interval)
        }
        pending = nil
        pendingSince = nil
        writing = true
        waitersBeforeWrite = waiters.count
        return .write(work.state, number: work.number)
    }

    /// The write of batch `number` committed. Returns the waiters to resume
    /// (with `nil`) and whether saving resumed after a failure.
    mutating func writeSucceeded(_ number: UInt64) -> (resume: [Resume], recovered: Bool) {
        writing = false
        saved = max(saved, number)
        let recovered = failure != nil
        failure = nil
        retryAt = nil
        var done: [Resume] = []
        waiters.removeAll { waiter in
            guard waiter.target <= saved else { return false }
            done.append(waiter.resume)
            return true
        }
        return (done, recovered)
    }

    /// The write of `state`, batch `number`, failed with `error`: the state
    /// is kept for a retry (unless a newer one is pending), and every waiter
    /// is resumed with the error. Returns them.
    mutating func writeFailed(_ state: State, number: UInt64, error: PersistentStateError, at now: ContinuousClock.Instant) -> [Resume] {
        writing = false
        failure = error
        retryAt = now + retryDelay
        if closing { abandoned = true }
        if pending == nil {
            pending = (state, number)
            pendingSince = now
        }
        // NB: only the waiters that were there when this write began: a
        // later one (a flush after the disk was freed) waits for the next
        // attempt, made at once since someone waits.
        let failed = waiters.prefix(waitersBeforeWrite).map(\.resume)
        waiters.removeFirst(min(waitersBeforeWrite, waiters.count))
        return failed
    }

    /// Waits until batch `target` is saved. Returns `resume` when it is
    /// already, else `nil` (it is called from a later write's outcome).
    mutating func wait(for target: UInt64, _ resume: @escaping Resume) -> Resume? {
        if saved >= target { return resume }
        waiters.append((target, resume))
        return nil
    }

    /// Runs `job` on the saver's thread as soon as no write runs, before
    /// any further write. Jobs run in the order they were handed over, all
    /// of them before the thread stops.
    ///
    /// - Precondition: not after ``close()``.
    mutating func enqueue(_ job: @escaping () -> Void) {
        precondition(!closing, "FastStorePersistence: internal error: a saver job after close")
        jobs.append(job)
    }

    /// No more batches: write what is pending (one attempt), then stop.
    mutating func close() { closing = true }

    /// The saver's thread ended: nothing more is written.
    private(set) var stopped = false

    /// The thread ends: returns the waiters no write will resume.
    mutating func stop() -> [Resume] {
        stopped = true
        let stranded = waiters.map(\.resume)
        waiters.removeAll()
        return stranded
    }
}

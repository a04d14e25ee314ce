/// What the saver does next, decided from what was published, what was
/// saved, who waits, the clock, and what the file holds: a pure state
/// machine, kept apart from the lock and the thread that run it
/// (``_Saver``), with the saver's policies: what a write does to the
/// history row (``plan(patchIsEmpty:generation:)``) and when the log is
/// compacted (``Step/compact``).
///
/// Batches are numbered from 1 in the order the store published them. Only
/// the newest unsaved state is kept: a write saves the patch from the last
/// saved state to it, so batches that pile up while a write runs are saved
/// together (the file always holds the state after some batch).
///
/// `package` for its unit tests (`PersistenceSaveMachineTests`).
package struct _SaveMachine<State> {
    package typealias Resume = (PersistentStateError?) -> Void

    /// The last batch number handed to ``offer(_:)``.
    package private(set) var published: UInt64 = 0
    /// The highest batch number committed to the file.
    package private(set) var saved: UInt64 = 0
    /// The newest state not saved yet, and its number.
    private var pending: (state: State, number: UInt64)?
    /// When the oldest batch in `pending` was published (for grouping).
    private var pendingSince: ContinuousClock.Instant?
    package private(set) var writing = false
    /// The error of the last write, until one succeeds.
    package private(set) var failure: PersistentStateError?
    /// No write before this (after a failure), unless someone waits.
    private var retryAt: ContinuousClock.Instant?
    package private(set) var closing = false
    /// A write failed after ``close()``: what is pending stays unsaved.
    package private(set) var abandoned = false
    private var waiters: [(target: UInt64, resume: Resume)] = []
    /// Work to run on the saver's thread between two writes, in order.
    private var jobs: [() -> Void] = []
    /// How many of `waiters` were there when the current write began.
    private var waitersBeforeWrite = 0

    package let durability: PersistenceOptions.Durability
    package let retryDelay: Duration

    // The history row and compaction policies.
    /// The patches written since the last snapshot.
    package private(set) var patchesSinceSnapshot: Int
    /// After how many patches the log is compacted.
    package let compactAfter: Int
    /// A compaction is due before the next write.
    private var compactionDue = false
    /// Whether the file holds a history saved with the state of the last
    /// written batch.
    package private(set) var historyInFile: Bool
    /// Once this process made a history: the store's generation up to
    /// which the file's history row describes it. A publication after it
    /// changed the history (every publication is an entry or a move), so a
    /// write of a later batch that changes nothing (the state's sequence
    /// does not move) must delete the row. `nil` while no history was made:
    /// nothing changes the row then.
    private var historyGeneration: UInt64?

    /// - Parameters:
    ///   - logged: The patches in the file's log (since its snapshot).
    ///   - historyInFile: Whether the file holds a history saved with its
    ///     state.
    package init(durability: PersistenceOptions.Durability, retryDelay: Duration, compactAfter: Int = 1_000,
                 logged: Int = 0, historyInFile: Bool = false) {
        self.durability = durability
        self.retryDelay = retryDelay
        self.compactAfter = compactAfter
        self.patchesSinceSnapshot = logged
        self.historyInFile = historyInFile
    }

    /// A published state: it replaces any pending one. Returns its number.
    ///
    /// - Complexity: O(1).
    package mutating func offer(_ state: consuming State, at now: @autoclosure () -> ContinuousClock.Instant) -> UInt64 {
        published &+= 1
        // NB: the clock is read only for the first batch of a group: a
        // batch that replaces a pending one (most, when batches come fast)
        // reads none.
        if pending == nil { pendingSince = now() }
        pending = (state, published)
        return published
    }

    /// What the saver does now.
    package enum Step {
        /// Write `state`, batch `number`: make its patch, ask
        /// ``plan(patchIsEmpty:generation:)`` what to write, write it, and
        /// report ``writeSucceeded(_:did:)`` or ``writeFailed(_:number:error:at:)``.
        case write(State, number: UInt64)
        /// Write a snapshot of the last saved state and empty the log up to
        /// it, then report ``compacted(_:)``.
        case compact
        /// Run a job handed to ``enqueue(_:)``.
        case run(() -> Void)
        /// Sleep until the instant (`nil`: until woken).
        case wait(until: ContinuousClock.Instant?)
        /// Closing, with nothing left to write: end the thread.
        case stop
    }

    /// The next step at `now`.
    package mutating func next(at now: ContinuousClock.Instant) -> Step {
        if writing { return .wait(until: nil) }
        // NB: before any write: a job reads what is saved now, and is not
        // held back by a write that waits (grouping, a retry delay).
        if !jobs.isEmpty { return .run(jobs.removeFirst()) }
        if closing && abandoned { return .stop }
        // NB: right after the write that made it due, before the next one
        // (as part of the write it follows); the flushes of that write
        // resumed already.
        if compactionDue {
            compactionDue = false
            return .compact
        }
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

    /// What a write writes, decided when its patch is made.
    package enum WritePlan: Equatable {
        /// Append the patch to the log.
        case appendPatch
        /// The state did not change, but the history did since the row was
        /// saved: delete the history row before the batch counts as saved
        /// (a kill after its flush returned then finds no history rather
        /// than one from before the batch: an undo to an equal state, or a
        /// dispatch that dropped the redo branch, changes only the history).
        case deleteHistoryRow
        /// Nothing to write.
        case nothing
    }

    /// What the write of a batch of the store's `generation` writes, its
    /// patch being empty or not.
    package func plan(patchIsEmpty: Bool, generation: UInt64) -> WritePlan {
        if !patchIsEmpty { return .appendPatch }
        if historyInFile, let historyGeneration, generation > historyGeneration { return .deleteHistoryRow }
        return .nothing
    }

    /// The write of batch `number` committed, having done `plan`. Returns
    /// the waiters to resume (with `nil`) and whether saving resumed after
    /// a failure.
    package mutating func writeSucceeded(_ number: UInt64, did plan: WritePlan) -> (resume: [Resume], recovered: Bool) {
        switch plan {
        case .appendPatch:
            patchesSinceSnapshot += 1
            historyInFile = false
        case .deleteHistoryRow:
            historyInFile = false
        case .nothing:
            break
        }
        // NB: also after a write that appended nothing: a compaction that
        // failed is tried again after the next write.
        compactionDue = patchesSinceSnapshot >= compactAfter
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

    /// The compaction ran: the log is empty when it `succeeded`. A failed
    /// one loses nothing (the log holds every patch, and opening replays
    /// it): it is tried again after the next write. Its error is not
    /// reported: saving works, and `onSaveFailure` means that it does not.
    package mutating func compacted(_ succeeded: Bool) {
        if succeeded { patchesSinceSnapshot = 0 }
    }

    /// A history is about to be made, the store's generation being at least
    /// `generation`: from now on a batch after it changes the history.
    package mutating func historyMade(atLeast generation: UInt64) {
        historyGeneration = generation
    }

    /// The history, as of the store's `generation`, was saved with the
    /// state of the last written batch.
    package mutating func historySaved(generation: UInt64) {
        historyInFile = true
        historyGeneration = generation
    }

    /// The write of `state`, batch `number`, failed with `error`: the state
    /// is kept for a retry (unless a newer one is pending), and every waiter
    /// is resumed with the error. Returns them.
    package mutating func writeFailed(_ state: State, number: UInt64, error: PersistentStateError, at now: ContinuousClock.Instant) -> [Resume] {
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
    package mutating func wait(for target: UInt64, _ resume: @escaping Resume) -> Resume? {
        if saved >= target { return resume }
        waiters.append((target, resume))
        return nil
    }

    /// Runs `job` on the saver's thread as soon as no write runs, before
    /// any further write. Jobs run in the order they were handed over, all
    /// of them before the thread stops.
    ///
    /// - Precondition: not after ``close()``.
    package mutating func enqueue(_ job: @escaping () -> Void) {
        precondition(!closing, "FastStorePersistence: internal error: a saver job after close")
        jobs.append(job)
    }

    /// No more batches: write what is pending (one attempt), then stop.
    package mutating func close() { closing = true }

    /// The saver's thread ended: nothing more is written.
    package private(set) var stopped = false

    /// The thread ends: returns the waiters no write will resume.
    package mutating func stop() -> [Resume] {
        stopped = true
        let stranded = waiters.map(\.resume)
        waiters.removeAll()
        return stranded
    }
}

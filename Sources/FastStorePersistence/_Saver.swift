import FastStore
import Foundation

/// Runs a ``_SaveMachine`` on a thread of its own, under one lock: the
/// draining thread only hands over the newest state (O(1)); the patch, its
/// encoding and the SQLite transaction happen here, off the dispatching and
/// draining threads.
final class _Saver<State: Codable & Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    // NB: guarded by `condition`, hence no dynamic exclusivity check (every
    // access is under the lock; the check was a measurable part of each
    // handed batch: docs/benchmarks/MEASUREMENTS.md, 2026-11-28).
    @exclusivity(unchecked) private var machine: _SaveMachine<_Offered>
    private let database: _StateDatabase
    private let options: PersistenceOptions
    private let finished = DispatchSemaphore(value: 0)
    // NB: guarded by `condition`; set once by `start()`, never cleared (a
    // finished thread is never `Thread.current` again).
    private var thread: Thread?
    // NB: guarded by `condition`: how the saver sleeps in `wait`, so that
    // an offer wakes it only when it sleeps until woken (a signal is a
    // system call). While a write runs, the saver takes the newest state
    // when it is done; while it sleeps until a deadline (a grouped write, a
    // retry), an offer changes neither the deadline nor what is written
    // then (the newest state), so it lets it sleep.
    private var sleep = _Sleep.awake
    // NB: guarded by `condition`: how many times the saver woke from a
    // sleep (tests: an offer must not wake a grouped saver).
    private var wakeUps = 0
    // NB: guarded by `condition`: set by a close called on the saver's own
    // thread (from `onSaveFailure`, or a `deinit` there), which cannot wait
    // for that thread: the loop finishes the close when it ends.
    private var finishOnExit: (() -> Void)?

    // NB: the saver thread's own, never touched elsewhere once it started.
    private var lastSaved: State
    private var sequence: Int64
    /// The store's generation of `lastSaved` (`nil` until a store's state
    /// was written).
    private var lastSavedGeneration: UInt64?

    init(database: _StateDatabase, saved: State, sequence: Int64, logged: Int, historyInFile: Bool, options: PersistenceOptions) {
        self.database = database
        self.options = options
        self.lastSaved = saved
        self.sequence = sequence
        self.machine = _SaveMachine(durability: options.durability, retryDelay: options.retryDelay,
                                    compactAfter: options.compactAfter, logged: logged, historyInFile: historyInFile)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "FastStorePersistence saver"
        condition.withLock { self.thread = thread }
        thread.start()
    }

    /// Runs `body` under the saver's lock, then wakes the saver.
    func withLock<T>(_ body: (inout _SaveMachine<_Offered>) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.signal()
            condition.unlock()
        }
        return try body(&machine)
    }

    /// Hands over a published state and its generation. O(1); wakes the
    /// saver only if it sleeps until woken (see `sleep`).
    func offer(_ state: State, generation: UInt64) {
        condition.lock()
        _ = machine.offer(_Offered(state: state, generation: generation), at: .now)
        if sleep == .untilWoken { condition.signal() }
        condition.unlock()
    }

    /// How many times the saver woke from a sleep.
    var wakeUpCount: Int { condition.lock(); defer { condition.unlock() }; return wakeUps }

    /// Whether the calling thread is the saver's (where `onSaveFailure` runs).
    var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { $0 === Thread.current } ?? false
    }

    /// The number of the last batch handed over.
    var published: UInt64 { withLock { $0.published } }

    /// The error of the last write, until one succeeds.
    var failure: PersistentStateError? { withLock { $0.failure } }

    /// Calls `resume` once batch `target` is saved (`nil`) or a write fails
    /// before (the error).
    func wait(for target: UInt64, _ resume: @escaping (PersistentStateError?) -> Void) {
        condition.lock()
        if machine.stopped && machine.saved < target {
            let error = machine.failure ?? .closed(path: database.path)
            condition.unlock()
            resume(error)
            return
        }
        let now = machine.wait(for: target, resume)
        condition.signal()
        condition.unlock()
        now?(nil)
    }

    /// Runs `job` on the saver's thread as soon as no write runs, with the
    /// last saved state, its generation, its batch's sequence in the file,
    /// and the file; `job` returns the generation of the history it saved
    /// with that state (`nil`: none saved). Returns `false` (and `job` never
    /// runs) once the saver is closing.
    func perform(_ job: @escaping (_ saved: State, _ generation: UInt64?, _ sequence: Int64, _ database: _StateDatabase) -> UInt64?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if machine.closing || machine.stopped { return false }
        // NB: `lastSaved` and `sequence` are the saver thread's own: read
        // there, when the job runs.
        machine.enqueue { [self] in
            if let generation = job(lastSaved, lastSavedGeneration, sequence, database) {
                condition.withLock { machine.historySaved(generation: generation) }
            }
        }
        if sleep != .awake { condition.signal() }
        return true
    }

    /// A history is about to be made, the store's generation being at least
    /// `generation`: from now on a batch after it changes the history.
    func historyMade(atLeast generation: UInt64) {
        condition.withLock { machine.historyMade(atLeast: generation) }
    }

    /// Writes what is pending (one attempt), stops the thread and waits for
    /// it. Returns the error of that last write, if it failed (reported to
    /// `onSaveFailure` already), and that of closing the connection.
    func close(then release: @escaping () -> Void) -> (lastWrite: PersistentStateError?, close: PersistentStateError?) {
        condition.lock()
        machine.close()
        condition.signal()
        // NB: read under the lock, as `isCurrentThread` reads it from any
        // thread (written by `start()` only).
        let thread = self.thread
        if let thread, thread === Thread.current {
            finishOnExit = release
            condition.unlock()
            return (nil, nil)
        }
        condition.unlock()
        if thread != nil { finished.wait() }
        var closeError: PersistentStateError?
        do { try database.close() } catch { closeError = error }
        release()
        return (withLock { $0.abandoned ? $0.failure : nil }, closeError)
    }

    private func run() {
        condition.lock()
        while true {
            switch machine.next(at: .now) {
            case .stop:
                let stranded = machine.stop()
                let error = machine.failure ?? .closed(path: database.path)
                let finish = finishOnExit
                condition.unlock()
                for waiter in stranded { waiter(error) }
                if let finish {
                    // NB: a close from `onSaveFailure` returned already: a
                    // failure to close the connection can only go there.
                    do { try database.close() } catch { options.onSaveFailure?(error) }
                    finish()
                }
                finished.signal()
                return
            case .wait(let until):
                sleep = until == nil ? .untilWoken : .untilDeadline
                if let until {
                    let left = until - .now
                    let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
                    _ = condition.wait(until: Date(timeIntervalSinceNow: max(0, seconds)))
                } else {
                    condition.wait()
                }
                sleep = .awake
                wakeUps += 1
            case .run(let job):
                condition.unlock()
                job()
                condition.lock()
            case .compact:
                condition.unlock()
                let succeeded = compact()
                condition.lock()
                machine.compacted(succeeded)
            case .write(let offered, let number):
                condition.unlock()
                let result = write(offered)
                condition.lock()
                let resume: [(PersistentStateError?) -> Void]
                var report: PersistentStateError?? = nil
                var error: PersistentStateError?
                switch result {
                case .failure(let failure):
                    error = failure
                    resume = machine.writeFailed(offered, number: number, error: failure, at: .now)
                    report = .some(failure)
                case .success(let plan):
                    let outcome = machine.writeSucceeded(number, did: plan)
                    resume = outcome.resume
                    if outcome.recovered { report = .some(nil) }
                }
                condition.unlock()
                // NB: reported before the flushes resume: a flush that threw
                // (or returned after a recovery) finds the report made.
                if let report { options.onSaveFailure?(report) }
                for waiter in resume { waiter(error) }
                condition.lock()
            }
        }
    }

    /// Saves the patch from the last saved state to `state`, or what the
    /// machine plans for an empty one (``_SaveMachine/plan(patchIsEmpty:generation:)``).
    /// Returns the plan carried out.
    private func write(_ offered: _Offered) -> Result<_SaveMachine<_Offered>.WritePlan, PersistentStateError> {
        guard let state = offered.state as? State else {
            preconditionFailure("FastStorePersistence: internal error: the saver of \(State.self) was handed a \(type(of: offered.state))")
        }
        let plan: _SaveMachine<_Offered>.WritePlan
        do {
            let patch = try StatePatch(from: lastSaved, to: state)
            plan = condition.withLock { machine.plan(patchIsEmpty: patch.isEmpty, generation: offered.generation) }
            switch plan {
            case .appendPatch:
                let data = _StateCoding.encode(patch)
                try database.append(sequence: sequence + 1, patch: data)
                sequence += 1
            case .deleteHistoryRow:
                try database.deleteHistory()
            case .nothing:
                break
            }
            lastSaved = state
            lastSavedGeneration = offered.generation
        } catch let error as PersistentStateError {
            return .failure(error)
        } catch {
            return .failure(.saveFailed(path: database.path, reason: "the state does not encode: \(error)"))
        }
        return .success(plan)
    }

    /// Writes a snapshot of the last saved state and empties the log up to
    /// it. Whether it succeeded: a failure is not reported (see
    /// ``_SaveMachine/compacted(_:)``).
    private func compact() -> Bool {
        guard let snapshot = try? _StateCoding.encode(lastSaved) else { return false }
        do {
            try database.compact(sequence: sequence, snapshot: snapshot)
            return true
        } catch {
            return false
        }
    }

    /// Test hook: see ``_StateDatabase/limitPages(_:)``.
    func limitPages(_ pages: Int?) throws { try database.limitPages(pages) }
    func pageCount() throws -> Int { try database.pageCount() }
}

/// A published state handed to the saver, with its generation in the store.
///
/// NB: the state as `Any`, so that the saver's machine is one concrete type
/// (`_SaveMachine<_Offered>`, specialized here). The saver's code is
/// generic over the app's state and runs unspecialized (the app's module
/// does not see it): a machine over `_Offered<State>` looked up the
/// metadata of the offer, its optional and the machine on every handed
/// batch, on the dispatching thread (counted with callgrind:
/// docs/benchmarks/MEASUREMENTS.md, 2026-11-28). Boxing the state needs only the metadata the
/// generic code is given; the saver thread casts it back.
struct _Offered {
    let state: Any
    let generation: UInt64
}

/// How the saver thread sleeps.
private enum _Sleep {
    case awake
    /// Until a signal: nothing to write.
    case untilWoken
    /// Until a deadline (a grouped write, a retry after a failure), or a
    /// signal.
    case untilDeadline
}

import FastStore
import Foundation

/// A store's state kept in a SQLite file across launches, saved in
/// O(changed): a snapshot, then one patch per write of the batches the
/// store published.
///
/// ```swift
/// let file = try PersistentState(path: url.path, initial: Versioned(AppState(todos: [])))
/// let store = Store(state: file.state, reducer: reducer)   // the state the file held
/// try file.keepSaving(store)                               // every batch from now on
/// ...
/// try await file.flush()                                   // every batch dispatched so far is on disk
/// ```
///
/// **What is saved, and when.** Each batch the store publishes is handed to
/// a saver thread (O(1) on the draining thread). The saver writes the
/// `StatePatch` from the last saved state to the newest published one, in
/// one SQLite transaction synced to disk: for versioned state its size and
/// cost follow what changed, not the state. Batches published while a write
/// runs are saved together by the next one. With
/// ``PersistenceOptions/Durability/grouped(_:)`` the saver writes at most once
/// per interval. Every ``PersistenceOptions/compactAfter`` patches it writes a
/// new snapshot of the whole state and empties the log, in the background.
///
/// **What a crash loses.** A batch is *acknowledged* once ``flush()`` (or
/// ``waitUntilSaved()``), called after it was dispatched, returns. After a
/// crash at any moment, the file opens to the state after some prefix of the
/// published batches that includes every acknowledged one: never a torn
/// state, never a state no batch produced. Batches not acknowledged may be
/// lost (at most those published since the last write committed).
///
/// **Faults.** Opening never crashes on a damaged file. It refuses, with a
/// ``PersistentStateError`` that names the problem, a file another
/// `PersistentState` has open (in any process, through any spelling of its
/// path), a file that is not a database, is empty or is damaged (naming the
/// table and row), a database that is not a state file, a state saved with
/// another ``PersistenceOptions/version``, a state that does not decode
/// (naming the coding path), and a patch that does not apply; the file and
/// its folder are then left as they were. When a save fails (a full disk),
/// the store keeps working in memory, ``PersistenceOptions/onSaveFailure`` is
/// called, ``flush()`` throws, and the saver retries: nothing published is
/// dropped, and saving resumes when the write succeeds.
///
/// **Lifetime.** Once ``keepSaving(_:)`` ran, the store holds this object:
/// saving lasts as long as the store, until ``close()``. The history made
/// by ``history(of:limit:)`` is held weakly: keep it to have it saved.
///
/// **A changed shape.** Raise ``PersistenceOptions/version`` when the
/// state's `Codable` shape changes, and give a ``Migration`` from each
/// earlier version whose files may exist: it decodes the old file with the
/// old type and converts it.
///
/// **Undo across a relaunch.** ``history(of:limit:)`` makes the store's
/// `StoreHistory` (kept as patches), restoring the one saved in the file
/// with the state it opened to. The history is saved by ``saveHistory()``
/// and by ``close()``; a history whose state is no longer the file's (a
/// batch saved after it, a crash after such a batch) is not restored.
public final class PersistentState<State: Codable & Sendable>: @unchecked Sendable {
    /// The file's path.
    public let path: String
    /// The state the file held when it was opened (after its log was
    /// applied), or `initial` for a new file: create the store with it.
    public let state: State

    let saver: _Saver<State>
    let onSaveFailure: (@Sendable (PersistentStateError?) -> Void)?
    private let fileLock: _FileLock
    let lock = NSLock()
    /// Held for the whole of a ``close()``.
    private let closing = NSLock()
    // NB: guarded by `lock`.
    private var subscription: StoreSubscription?
    // NB: the store's `flush()` and `waitUntilIdle()`, safe from any thread
    // whatever its `Action` (hence the unchecked box).
    private var storeHandle: _StoreHandle?
    // NB: guarded by `lock`.
    var isClosed = false
    /// The store ``keepSaving(_:)`` saves. Guarded by `lock`.
    var savedStore: ObjectIdentifier?
    /// The history saved in the file with the state it opened to (JSON),
    /// until ``history(of:limit:)`` takes it. Guarded by `lock`.
    var savedHistory: Data?
    /// The history ``history(of:limit:)`` made, saved at ``close()``.
    /// Guarded by `lock`.
    var historyHandle: _HistoryHandle<State>?

    /// Opens the state file at `path`, creating it with `initial` when it
    /// does not exist, and starts its saver.
    ///
    /// A new file is written whole under a hidden name beside `path`
    /// (`.NAME.faststore-new-UUID`) and moved to `path` once written: a
    /// crash while creating it leaves no file at `path` (the hidden file is
    /// removed by the next open), and never replaces a file: when another
    /// open (another process, or another `PersistentState`) creates the
    /// file at the same moment, one of them creates it and the other opens
    /// it as an existing file (``PersistentStateError/fileInUse(path:)``
    /// while the first has it open). An existing empty file is refused
    /// (``PersistentStateError/emptyFile(path:)``). No lock file is made:
    /// the file itself is locked, by its identity (a symlink, a hard link,
    /// a relative path or one with `..` name the same owner).
    ///
    /// - Parameters:
    ///   - path: The file's path (created when missing). SQLite names its
    ///     `-wal` after the path with symlinks resolved; a hard link is
    ///     another name, with a `-wal` of its own: open a file through one
    ///     name only, or a crash's last batches (in the `-wal`) are not seen
    ///     through the other.
    ///   - options: How it saves, and the state's version.
    ///   - migrations: How to open files saved with earlier versions of the
    ///     state's shape (``Migration``); a file of another version without
    ///     one is refused.
    ///   - initial: The state of a new file.
    /// - Complexity: O(the snapshot's size + the log's patches): decoding the
    ///   snapshot and applying the patches saved since it (plus, for a
    ///   migrated file, the conversion and a new snapshot written).
    /// - Throws: ``PersistentStateError``; the file, and the folder's
    ///   listing, are then left as they were (a `-wal` or `-shm` SQLite
    ///   made to read the file is removed, but beside a file
    ///   ``PersistentStateError/fileReplaced(path:)`` found in its place).
    public init(
        path: String, options: PersistenceOptions = .init(), migrations: [Migration] = [],
        initial: @autoclosure () -> State
    ) throws(PersistentStateError) {
        self.path = path
        precondition(options.compactAfter >= 1, "FastStorePersistence: PersistenceOptions.compactAfter must be at least 1, not \(options.compactAfter)")
        for migration in migrations {
            precondition(migration.version != options.version,
                         "FastStorePersistence: a migration from version \(migration.version), the current PersistenceOptions.version")
            precondition(migrations.filter { $0.version == migration.version }.count == 1,
                         "FastStorePersistence: two migrations from version \(migration.version)")
        }
        let (owner, opened) = try Self._open(path: path, options: options, migrations: migrations, initial: initial)
        fileLock = owner
        state = opened.loaded
        onSaveFailure = options.onSaveFailure
        savedHistory = opened.restorable
        saver = _Saver(database: opened.database, saved: opened.loaded, sequence: opened.sequence, logged: opened.logged,
                       historyInFile: opened.restorable != nil, options: options)
        saver.start()
    }

    /// Saves every batch `store` publishes from now on, and the store's
    /// current state if it moved on from ``state``.
    ///
    /// The store holds this `PersistentState` from now on: saving goes on
    /// as long as the store lives, whether or not the app keeps a reference
    /// to it, until ``close()``. When the store is released, what it
    /// published is written and the file released (as by ``close()``; an
    /// error of that close goes to ``PersistenceOptions/onSaveFailure``).
    ///
    /// - Throws: ``PersistentStateError/alreadySaving(path:)`` when a store is
    ///   already saved, ``PersistentStateError/closed(path:)`` after ``close()``.
    /// - Complexity: O(1) per published batch on the draining thread.
    public func keepSaving<Action>(_ store: Store<State, Action>) throws(PersistentStateError) {
        lock.lock()
        defer { lock.unlock() }
        if isClosed { throw .closed(path: path) }
        if subscription != nil { throw .alreadySaving(path: path) }
        // NB: under the saver's lock, so that a batch published right after
        // the registration (its delivery waits for the lock) is offered
        // after the state read with the registration, never before it.
        // The store's subscriber holds `self`: saving lasts as long as the
        // store, even when the app lets go of this object; `close()` ends it.
        subscription = saver.withLock { machine in
            let (subscription, current, generation) = store._subscribeFromCurrentState { [self] state, generation in
                saver.offer(state, generation: generation)
            }
            _ = machine.offer(_Offered(state: current, generation: generation), at: .now)
            return subscription
        }
        storeHandle = _StoreHandle(store)
        savedStore = ObjectIdentifier(store)
    }

    /// Returns once every batch dispatched to the saved store before this
    /// call is saved: the batch is then acknowledged.
    ///
    /// - Throws: the ``PersistentStateError/saveFailed(path:reason:)`` of a write
    ///   that failed (the state stays pending and is retried), or
    ///   ``PersistentStateError/closed(path:)``, also when ``close()`` ran
    ///   while this waited for the store (the batches may not be saved).
    public func flush() async throws(PersistentStateError) {
        let (closed, handle) = lock.withLock { (isClosed, storeHandle) }
        if closed { throw .closed(path: path) }
        await handle?.flush()
        // NB: a close while the store drained may have cancelled the
        // subscription before the batch was offered: `published` would then
        // leave it out, and the flush return as if it were saved.
        if lock.withLock({ isClosed }) { throw .closed(path: path) }
        let target = saver.published
        let saver = self.saver
        let error: PersistentStateError? = await withCheckedContinuation { continuation in
            saver.wait(for: target) { continuation.resume(returning: $0) }
        }
        if let error { throw error }
    }

    /// Blocks until every batch dispatched to the saved store before this
    /// call is saved (see ``flush()``).
    ///
    /// - Precondition: not called from inside the store's drain, nor from
    ///   ``PersistenceOptions/onSaveFailure`` (the saver's thread).
    public func waitUntilSaved() throws(PersistentStateError) {
        precondition(!saver.isCurrentThread,
                     "FastStorePersistence: waitUntilSaved() called from onSaveFailure, on the saver's thread: it would wait for itself (start a Task and await flush() instead)")
        let (closed, handle) = lock.withLock { (isClosed, storeHandle) }
        if closed { throw .closed(path: path) }
        handle?.waitUntilIdle()
        // NB: see `flush()`.
        if lock.withLock({ isClosed }) { throw .closed(path: path) }
        let target = saver.published
        let done = DispatchSemaphore(value: 0)
        let outcome = _Outcome()
        saver.wait(for: target) { error in
            outcome.error = error
            done.signal()
        }
        done.wait()
        if let error = outcome.error { throw error }
    }

    /// The error of the last write, until a write succeeds (`nil` while
    /// saving works).
    public var saveFailure: PersistentStateError? { saver.failure }

    /// Stops saving: writes what is pending (one attempt), saves the history
    /// (``history(of:limit:)``) when its state is the one saved, stops the
    /// saver and releases the file. Idempotent. Batches the store publishes
    /// afterwards are not saved, and the store no longer holds this object.
    /// Without a call, releasing the saved store (or this object, when it
    /// saves no store) closes it.
    ///
    /// - Throws: the error of that last write, if it failed: the batches
    ///   it held are not in the file; else the error of the history's write,
    ///   if it failed: the history is not in the file (the state is); else
    ///   that of closing the connection
    ///   (``PersistentStateError/saveFailed(path:reason:)``: SQLite closes it
    ///   when it is released, and the next open checkpoints its WAL).
    public func close() throws(PersistentStateError) {
        let outcome = closeReporting()
        if let error = outcome.lastWrite ?? outcome.unreported.first { throw error }
    }

    /// The errors of a close: that of the last write (which the saver
    /// reported to `onSaveFailure` already), and those of the history's
    /// write and of closing the connection (which nothing reported).
    private struct _CloseOutcome {
        var lastWrite: PersistentStateError?
        var unreported: [PersistentStateError] = []
    }

    private func closeReporting() -> _CloseOutcome {
        // NB: a second caller waits until the first one's close is done
        // (the file released), but for a close on the saver's own thread
        // (from `onSaveFailure`), which the saver finishes when it stops.
        if saver.isCurrentThread { return closeOnce() }
        closing.lock()
        defer { closing.unlock() }
        return closeOnce()
    }

    private func closeOnce() -> _CloseOutcome {
        lock.lock()
        if isClosed { lock.unlock(); return _CloseOutcome() }
        isClosed = true
        let subscription = self.subscription
        self.subscription = nil
        storeHandle = nil
        lock.unlock()
        subscription?.cancel()
        // NB: not on the saver's thread (a close from `onSaveFailure`),
        // which cannot wait for its own jobs: the history is then not saved.
        var historyError: PersistentStateError?
        if let historyHandle = lock.withLock({ self.historyHandle }), !saver.isCurrentThread {
            historyError = saveHistoryBeforeClosing(historyHandle)
        }
        let fileLock = self.fileLock
        let (writeError, closeError) = saver.close(then: { fileLock.release() })
        return _CloseOutcome(lastWrite: writeError, unreported: [historyError, closeError].compactMap { $0 })
    }

    /// Released: the app let go of it, and no store it saves holds it. The
    /// close's errors that no one heard of (the history's write, closing
    /// the connection) go to ``PersistenceOptions/onSaveFailure``; that of
    /// the last write went there already.
    deinit {
        for error in closeReporting().unreported { onSaveFailure?(error) }
    }

    /// Test hook: limits the database to `pages` pages, so that a write
    /// past it fails as on a full disk (`nil` lifts it).
    @_spi(Testing)
    public func _limitPages(_ pages: Int?) throws { try saver.limitPages(pages) }

    /// Test hook: the database's size in pages.
    @_spi(Testing)
    public func _pageCount() throws -> Int { try saver.pageCount() }

    /// Test hook: how many times the saver's thread woke from a sleep.
    @_spi(Testing)
    public var _saverWakeUps: Int { saver.wakeUpCount }
}

/// The saved store's `flush()` and `waitUntilIdle()`, held weakly. Both are
/// safe from any thread whatever the store's `Action`, which need not be
/// `Sendable`: hence `@unchecked`.
private final class _StoreHandle: @unchecked Sendable {
    private let flushBody: () async -> Void
    private let waitBody: () -> Void

    init<State, Action>(_ store: Store<State, Action>) {
        flushBody = { [weak store] in await store?.flush() }
        waitBody = { [weak store] in store?.waitUntilIdle() }
    }

    func flush() async { await flushBody() }
    func waitUntilIdle() { waitBody() }
}

/// A result handed from the saver's thread to a blocked caller.
private final class _Outcome: @unchecked Sendable {
    var error: PersistentStateError?
}

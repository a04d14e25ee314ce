import FastStore
import Foundation

extension PersistentState {
    /// Makes `store`'s history, kept as patches (`StoreHistory.Storage.patches`),
    /// and saved in the file at ``close()`` and by ``saveHistory()``: undo
    /// and redo go on across a relaunch.
    ///
    /// ```swift
    /// let file = try PersistentState(path: path, initial: Versioned(AppState()))
    /// let store = Store(state: file.state, reducer: reducer)
    /// try file.keepSaving(store)
    /// let history = try file.history(of: store)   // the entries saved last time, if any
    /// try history.undo()                          // back past the relaunch
    /// ```
    ///
    /// The history saved in the file is restored when the file opened to
    /// the state it was saved with and no batch was saved after it; else (a
    /// batch was saved after it, and the process stopped without ``close()``
    /// or ``saveHistory()`` since) the history starts anew, with the state
    /// the store has. A patch that does not encode (a non-finite `Double`)
    /// cuts the saved history there: the entries beyond it are not saved,
    /// and ``PersistenceOptions/onSaveFailure`` is called with
    /// ``PersistentStateError/historyCut(path:kept:reason:)`` (the history
    /// is saved all the same: ``saveHistory()`` returns `true`). Restored
    /// entries keep their numbers, and have no actions (the file keeps
    /// none). When the store moved on from ``state`` before this call, one
    /// entry without actions is added for the difference.
    ///
    /// Save the store this history records (``keepSaving(_:)``): the history
    /// is saved only when it is the saved store's, has seen every batch
    /// the file saved and no later one, and its current state is the
    /// file's.
    ///
    /// Keep the returned history for as long as it should be saved: this
    /// `PersistentState` holds it weakly (the history holds the store,
    /// which holds this object while it saves it). A history the app lets
    /// go of before ``close()`` is not saved by it (nor by
    /// ``saveHistory()``, which then returns `false`): the file keeps the
    /// history saved before, restored only if no batch was saved after it.
    ///
    /// - Parameters:
    ///   - store: The store to record: the one created from ``state``.
    ///   - limit: How many entries to keep; of a larger saved history, the
    ///     entries before its current one first (what undo reaches), then
    ///     those after it.
    /// - Throws: ``PersistentStateError/historyAlreadyMade(path:)`` on a
    ///   second call, ``PersistentStateError/historyDoesNotDecode(path:reason:)``
    ///   when the saved history does not decode (it is dropped: calling again
    ///   makes a new one), ``PersistentStateError/closed(path:)`` after
    ///   ``close()``.
    /// - Complexity: O(the saved history's operations), to decode them.
    public func history<Action>(
        of store: Store<State, Action>, limit: StoreHistory<State, Action>.Limit = .entries(1000)
    ) throws(PersistentStateError) -> StoreHistory<State, Action> {
        lock.lock()
        defer { lock.unlock() }
        if isClosed { throw .closed(path: path) }
        if historyHandle != nil { throw .historyAlreadyMade(path: path) }
        // NB: before the history subscribes: a batch published from here on
        // may change it.
        saver.historyMade(atLeast: store._generationBeingNotified)
        let history: StoreHistory<State, Action>
        if let data = savedHistory {
            savedHistory = nil
            let saved: _SavedHistory<State>
            do {
                saved = try JSONDecoder().decode(_SavedHistory<State>.self, from: data)
            } catch {
                throw .historyDoesNotDecode(path: path, reason: "\(error)")
            }
            if let problem = saved.problem { throw .historyDoesNotDecode(path: path, reason: problem) }
            history = StoreHistory(store, limit: limit, restoring: saved, state: state)
        } else {
            history = StoreHistory(store, limit: limit, storage: .patches)
        }
        historyHandle = _HistoryHandle(history, of: store)
        return history
    }

    /// Saves the history made by ``history(of:limit:)`` in the file, after
    /// every batch dispatched before this call (as ``flush()``): a relaunch
    /// after it restores the history, unless a later batch is saved first.
    /// Call it when the app may be stopped without ``close()``, for
    /// instance when it goes to the background.
    ///
    /// - Returns: `true` when the history was saved; `false` when no history
    ///   was made, when it records another store than the one saved, or
    ///   when the store moved on from the saved state while this ran
    ///   (another thread dispatched): call it again when the store is idle.
    /// - Throws: what ``flush()`` throws, or the
    ///   ``PersistentStateError/saveFailed(path:reason:)`` of the history's
    ///   write.
    /// - Complexity: O(the history's operations), to encode them, on the
    ///   saver's thread (plus a diff of its current state against the file's
    ///   when no store is saved).
    @discardableResult
    public func saveHistory() async throws(PersistentStateError) -> Bool {
        try await flush()
        guard let handle = lock.withLock({ historyHandle }) else { return false }
        let outcome: Result<Bool, PersistentStateError> = await withCheckedContinuation { continuation in
            if !queueHistoryWrite(handle, { continuation.resume(returning: $0) }) {
                continuation.resume(returning: .failure(.closed(path: path)))
            }
        }
        return try outcome.get()
    }

    /// At ``close()``, after the pending write: saves the history (one
    /// attempt). Returns the error of the history's write: the file then
    /// keeps its earlier history, which any later write leaves behind. Not
    /// on the saver's thread.
    func saveHistoryBeforeClosing(_ handle: _HistoryHandle<State>) -> PersistentStateError? {
        let target = saver.published
        let written = DispatchSemaphore(value: 0)
        saver.wait(for: target) { _ in written.signal() }
        written.wait()
        let done = DispatchSemaphore(value: 0)
        let outcome = _HistoryOutcome()
        guard queueHistoryWrite(handle, { result in
            if case .failure(let error) = result { outcome.error = error }
            done.signal()
        }) else { return nil }
        done.wait()
        return outcome.error
    }

    /// Hands the saver a job that writes the history when its current state
    /// is the last saved one. `false` when the saver is closing.
    private func queueHistoryWrite(_ handle: _HistoryHandle<State>, _ done: @escaping (Result<Bool, PersistentStateError>) -> Void) -> Bool {
        let path = self.path
        let onSaveFailure = self.onSaveFailure
        let savedStore = lock.withLock { self.savedStore }
        return saver.perform { saved, savedGeneration, sequence, database in
            guard let (history, state, generation) = handle.saved() else { done(.success(false)); return nil }
            // NB: a history is valid only with the state it was saved with,
            // the file's, after batch `sequence`. With a store saved: the
            // saved store's history, having seen exactly the publications
            // the saver saved (a batch that changed nothing changes the
            // history, not the state), which makes its state the saved one.
            // With none: a history whose state is the one the file holds.
            if let savedStore {
                guard savedStore == handle.store, savedGeneration == generation else { done(.success(false)); return nil }
            } else {
                // NB: a diff that throws (a state that does not encode)
                // cannot show the states equal: the history is not saved,
                // and the caller is told so (`false`), as for any other
                // state.
                guard let difference = try? StatePatch(from: state, to: saved), difference.isEmpty else {
                    done(.success(false))
                    return nil
                }
            }
            // NB: a patch that does not encode (a non-finite Double) cuts the
            // history there, as an entry without a patch does: the entries
            // beyond it go, and `onSaveFailure` is told once it is saved.
            let encoder = JSONEncoder()
            let entries: Data
            var cut: PersistentStateError?
            do {
                do {
                    entries = try encoder.encode(history)
                } catch let whole {
                    let kept = history.reachable { (try? encoder.encode($0)) != nil }
                    entries = try encoder.encode(kept)
                    cut = .historyCut(path: path, kept: kept.first ... kept.first + kept.patches.count - 1,
                                      reason: "of its entries \(history.first)...\(history.first + history.patches.count - 1), a patch does not encode: \(whole)")
                }
            } catch {
                done(.failure(.saveFailed(path: path, reason: "the history does not encode: \(error)")))
                return nil
            }
            let result = Result { () throws(PersistentStateError) in
                try database.saveHistory(sequence: sequence, entries: entries)
                return true
            }
            // NB: before `done`: the caller of saveHistory() finds it reported.
            if let cut, case .success = result { onSaveFailure?(cut) }
            done(result)
            // NB: the error, if any, went to the caller through `done`.
            return (try? result.get()) == true ? generation : nil
        }
    }
}

/// The error of a history's write at close, handed from the saver's thread.
private final class _HistoryOutcome: @unchecked Sendable {
    var error: PersistentStateError?
}

/// A history made by ``PersistentState/history(of:limit:)``, held weakly:
/// its entries as patches, read under its own lock from the saver's thread
/// (hence `@unchecked`; the history need not be `Sendable`).
final class _HistoryHandle<State: Codable>: @unchecked Sendable {
    let saved: () -> (history: _SavedHistory<State>, state: State, generation: UInt64)?
    /// The store the history records.
    let store: ObjectIdentifier

    init<Action>(_ history: StoreHistory<State, Action>, of store: Store<State, Action>) {
        saved = { [weak history] in history?._saved() }
        self.store = ObjectIdentifier(store)
    }
}

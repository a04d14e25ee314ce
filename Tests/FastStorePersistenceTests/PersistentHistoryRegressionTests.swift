import FastStore
@_spi(Testing) import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import Testing

/// Bugs a hostile review of undo across a relaunch found, each a test that
/// failed before its fix: a redo branch dropped by a batch that changed
/// nothing came back after a kill; `limit: .entries(.max)` overflowed; a
/// smaller limit kept the redo branch over the undo entries; one
/// non-finite `Double` in an old entry stopped every history save (and
/// `close()` said nothing); a negative limit trapped in an array slice.
@Suite struct PersistentHistoryRegressionTests {
    struct R: Codable, Sendable, Equatable {
        var n = 0
        var x = 0.0
        var tag = ""
    }

    enum RA: Sendable {
        case inc
        case set(Double)
        case tag(String)
        case noop
    }

    static func reduce(_ s: inout R, _ a: RA) {
        switch a {
        case .inc: s.n += 1
        case .set(let x): s.x = x
        case .tag(let t): s.tag = t
        case .noop: break
        }
    }

    static func path(_ name: String = #function) -> String {
        temporaryDirectory("regression-" + name).appendingPathComponent("state.sqlite").path
    }

    /// The file at `path` opened, a store from its state saved to it, and
    /// its history made.
    static func open(_ path: String, limit: Int = 1000) throws -> (PersistentState<R>, Store<R, RA>, StoreHistory<R, RA>) {
        let file = try PersistentState(path: path, initial: R())
        let store = Store(state: file.state, reducer: Self.reduce)
        try file.keepSaving(store)
        return (file, store, try file.history(of: store, limit: .entries(limit)))
    }

    /// What a kill leaves at this moment: the database file and its WAL,
    /// copied (every write is committed and synced; nothing is running).
    static func crashCopy(_ path: String, to copy: String) throws {
        let fm = FileManager.default
        for suffix in ["", "-wal"] {
            try? fm.removeItem(atPath: copy + suffix)
            if fm.fileExists(atPath: path + suffix) { try fm.copyItem(atPath: path + suffix, toPath: copy + suffix) }
        }
    }

    // MARK: 1. A batch that changes nothing drops the redo branch, but a kill resurrects it.

    @Test func aBatchThatChangesNothingAfterSaveHistoryLeavesNoStaleRedoBranchForAKill() async throws {
        let path = Self.path()
        let (file, store, history) = try Self.open(path)
        for _ in 0 ..< 5 { store.dispatch(.inc); store.waitUntilIdle() }
        try history.undo(); try history.undo()      // n == 3, redo to 4 and 5
        #expect(try await file.saveHistory() == true)
        // The user dispatches an action that changes nothing: in one
        // session that drops the redo branch (as any dispatch).
        store.dispatch(.noop); store.waitUntilIdle()
        try await file.flush()                      // the batch is acknowledged
        #expect(!history.canRedo && history.currentIndex == 4)
        // Killed here: what the file holds.
        let copy = path + ".killed"
        try Self.crashCopy(path, to: copy)
        try file.close()

        let reopened = try PersistentState(path: copy, initial: R())
        let store2 = Store(state: reopened.state, reducer: Self.reduce)
        try reopened.keepSaving(store2)
        let restored = try reopened.history(of: store2)
        #expect(store2.state.n == 3)
        #expect(!restored.canRedo, "the redo branch the user dropped (by the acknowledged batch) is back: indices \(restored.indices), current \(restored.currentIndex)")
        if restored.canRedo {
            try restored.redo()
            Issue.record("redo after the relaunch went to n == \(store2.state.n), a state the user abandoned")
        }
        try reopened.close()
    }

    // MARK: 2. A limit of .entries(Int.max) traps on restoring an evicted history.

    @Test func anUnboundedLimitRestoresAHistoryThatEvicted() throws {
        let path = Self.path()
        do {
            let (file, store, history) = try Self.open(path, limit: 3)
            for _ in 0 ..< 5 { store.dispatch(.inc); store.waitUntilIdle() }
            #expect(history.indices == 3 ... 5)
            try file.close()
        }
        let file = try PersistentState(path: path, initial: R())
        let store = Store(state: file.state, reducer: Self.reduce)
        // `.entries(.max)`: "no limit"; a valid Limit (at least 1), and a
        // fresh StoreHistory accepts it. Traps here (Int overflow in
        // _HistoryTimeline.init, `lower + limit`).
        let history = try file.history(of: store, limit: .entries(.max))
        #expect(history.indices == 3 ... 5)
        try file.close()
    }

    // MARK: 3. A smaller limit keeps the redo branch over the undo entries, which a moved-on store then drops.

    @Test func aSmallerLimitWithAMovedOnStoreKeepsTheEntriesNearestTheCurrentOne() throws {
        let path = Self.path()
        do {
            let (file, store, history) = try Self.open(path)
            for _ in 0 ..< 30 { store.dispatch(.inc); store.waitUntilIdle() }
            try history.jump(to: 20)
            try file.close()
        }
        let file = try PersistentState(path: path, initial: R())
        let store = Store(state: file.state, reducer: Self.reduce)
        try file.keepSaving(store)
        store.dispatch(.tag("before the history")); store.waitUntilIdle()
        let history = try file.history(of: store, limit: .entries(10))
        // Documented: "of a larger saved history, those nearest its current
        // entry" (entry 20): 11...20 or so, then the entry for the difference.
        #expect(history.currentIndex == 21)
        #expect(history.indices == 12 ... 21, "kept \(history.indices): the undo entries go first")
        try file.close()
    }

    // MARK: 4. One non-finite Double in any entry: the history never saves (until evicted).

    @Test func anEntryThatDoesNotEncodeCutsTheSavedHistoryThere() async throws {
        let path = Self.path()
        do {
            let (file, store, history) = try Self.open(path)
            store.dispatch(.inc); store.waitUntilIdle()
            store.dispatch(.set(.infinity)); store.waitUntilIdle()   // e.g. a ratio over an empty list
            try? await file.flush()                                   // this state cannot be saved: reported
            store.dispatch(.set(1)); store.waitUntilIdle()
            for _ in 0 ..< 3 { store.dispatch(.inc); store.waitUntilIdle() }
            try await file.flush()                                    // saving works again: the state is on disk
            #expect(file.saveFailure == nil)
            do {
                let saved = try await file.saveHistory()
                #expect(saved, "the history's state is the file's")
            } catch {
                Issue.record("saveHistory threw though the state saves: \(error)")
            }
            #expect(history.indices == 0 ... 6)
            try file.close()
        }
        let file = try PersistentState(path: path, initial: R())
        let store = Store(state: file.state, reducer: Self.reduce)
        let history = try file.history(of: store)
        #expect(store.state.n == 4)
        #expect(history.indices == 3 ... 6, "the entries above the non-finite ones: \(history.indices)")
        try file.close()
    }

    /// Misuse: a negative limit stops with the message a fresh history
    /// gives, not a trap deep inside.
    @Test func aNegativeLimitWithASavedHistoryNamesTheProblem() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let path = temporaryDirectory("negative").appendingPathComponent("state.sqlite").path
            do {
                let file = try PersistentState(path: path, initial: PersistentHistoryRegressionTests.R())
                let store = Store(state: file.state, reducer: PersistentHistoryRegressionTests.reduce)
                try file.keepSaving(store)
                let history = try file.history(of: store)
                for _ in 0 ..< 5 { store.dispatch(.inc); store.waitUntilIdle() }
                _ = history
                try file.close()
            }
            let file = try PersistentState(path: path, initial: PersistentHistoryRegressionTests.R())
            _ = try file.history(of: Store(state: file.state, reducer: PersistentHistoryRegressionTests.reduce), limit: .entries(-1))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("StoreHistory limit must keep at least 1 entry, got -1"), "got: \(message)")
    }
}

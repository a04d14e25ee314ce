import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import GRDB
import Testing

/// `PersistentState.history(of:)`: undo and redo across a relaunch.
@Suite struct PersistentHistoryTests {
    typealias Action = CrashModel.Action

    /// One session: the file opened, a store from its state, saving on, and
    /// (unless `history` is false) the history made.
    struct Session {
        let file: PersistentState<S>
        let store: Store<S, Action>
        let history: StoreHistory<S, Action>?

        init(_ path: String, limit: Int = 1000, history: Bool = true, before: [Action] = []) throws {
            file = try PersistentState(path: path, initial: CrashModel.initial())
            store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store)
            for action in before { store.dispatch(action); store.waitUntilIdle() }
            self.history = history ? try file.history(of: store, limit: .entries(limit)) : nil
        }

        /// Dispatches each action as a batch of its own.
        func dispatch(_ actions: some Sequence<Action>) {
            for action in actions {
                store.dispatch(action)
                store.waitUntilIdle()
            }
        }
    }

    /// One session that dispatches `actions` (a batch each), runs `body`
    /// on its history, and closes.
    static func saveSession(_ path: String, _ actions: some Sequence<Action>,
                            _ body: (StoreHistory<S, Action>) throws -> Void = { _ in }) throws {
        let session = try Session(path)
        session.dispatch(actions)
        try body(session.history!)
        try session.file.close()
    }

    static func path(_ name: String = #function) -> String {
        temporaryDirectory(name).appendingPathComponent("state.sqlite").path
    }

    static func same(_ a: S, _ b: S) -> Bool { CrashModel.canonical(a) == CrashModel.canonical(b) }

    @Test func undoGoesOnAcrossARelaunch() throws {
        let path = Self.path()
        let actions = CrashModel.actions(seed: 11, count: 20)
        try Self.saveSession(path, actions)
        let session = try Session(path)
        let history = try #require(session.history)
        #expect(history.indices == 0 ... 20 && history.currentIndex == 20)
        #expect(history[20]?.actions.isEmpty == true, "restored entries have no actions")
        for count in stride(from: 19, through: 0, by: -1) {
            try history.undo()
            #expect(Self.same(session.store.state, CrashModel.reference(actions, count: count)), "undo to \(count)")
        }
        #expect(!history.canUndo)
        try history.jump(to: 20)
        #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 20)))
        for index in history.indices {
            #expect(history[index].map { Self.same($0.state, CrashModel.reference(actions, count: index)) } == true, "entry \(index)")
        }
        try session.file.close()
    }

    @Test func aHistoryClosedAfterUndoKeepsItsRedoBranch() throws {
        let path = Self.path()
        let actions = CrashModel.actions(seed: 12, count: 10)
        try Self.saveSession(path, actions) { history in
            for _ in 0 ..< 4 { try history.undo() }
        }
        let session = try Session(path)
        let history = try #require(session.history)
        #expect(Self.same(session.file.state, CrashModel.reference(actions, count: 6)))
        #expect(history.indices == 0 ... 10 && history.currentIndex == 6 && history.canRedo)
        for count in 7 ... 10 {
            try history.redo()
            #expect(Self.same(session.store.state, CrashModel.reference(actions, count: count)), "redo to \(count)")
        }
        // A dispatch drops the redo branch, as in one session.
        try history.jump(to: 8)
        session.dispatch([.note("branch")])
        #expect(history.indices == 0 ... 9)
        try session.file.close()
        let third = try Session(path)
        #expect(third.history!.indices == 0 ... 9 && third.history!.currentIndex == 9)
        try third.history!.undo()
        #expect(Self.same(third.store.state, CrashModel.reference(actions, count: 8)))
        try third.file.close()
    }

    @Test func aBatchSavedAfterTheHistoryLeavesItBehind() throws {
        let path = Self.path()
        let actions = CrashModel.actions(seed: 13, count: 8)
        try Self.saveSession(path, actions.prefix(5))
        do {
            // No history made: the batch is saved, the history is not.
            let session = try Session(path, history: false)
            session.dispatch(actions.dropFirst(5))
            try session.file.close()
        }
        let session = try Session(path)
        let history = try #require(session.history)
        #expect(history.indices == 0 ... 0, "a history saved with an earlier state is not restored")
        #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 8)))
        try session.file.close()
    }

    @Test func aStoreThatMovedOnBeforeTheHistoryGetsAnEntryForTheDifference() throws {
        let path = Self.path()
        let actions = CrashModel.actions(seed: 14, count: 5)
        try Self.saveSession(path, actions)
        let session = try Session(path, before: [.note("before the history")])
        let history = try #require(session.history)
        #expect(history.indices == 0 ... 6 && history.currentIndex == 6)
        #expect(history[6]?.state.note == "before the history" && history[6]?.actions.isEmpty == true)
        try history.undo()
        #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 5)))
        try history.undo()
        #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 4)))
        try session.file.close()
    }

    @Test func aSmallerLimitKeepsTheUndoEntriesFirst() throws {
        let path = Self.path()
        let actions = CrashModel.actions(seed: 15, count: 30)
        try Self.saveSession(path, actions) { try $0.jump(to: 5) }
        do {
            let session = try Session(path, limit: 10)
            let history = try #require(session.history)
            #expect(history.indices == 0 ... 9 && history.currentIndex == 5)
            try history.jump(to: 9)
            #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 9)))
            try session.file.close()
        }
        let session = try Session(path, limit: 4)
        #expect(session.history!.indices == 6 ... 9 && session.history!.currentIndex == 9)
        try session.history!.jump(to: 6)
        #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 6)))
        try session.file.close()
    }

    @Test func misuseIsAClearError() throws {
        let path = Self.path()
        let session = try Session(path)
        #expect(throws: PersistentStateError.self) { try session.file.history(of: session.store) }
        do {
            _ = try session.file.history(of: session.store)
        } catch {
            #expect("\(error)".contains("already made"), "\(error)")
        }
        try session.file.close()
        do {
            _ = try session.file.history(of: session.store)
            Issue.record("a history from a closed file")
        } catch {
            #expect("\(error)".contains("closed"), "\(error)")
        }
    }

    @Test func saveHistorySaysWhetherItSaved() async throws {
        let path = Self.path()
        let file = try PersistentState(path: path, initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        #expect(try await file.saveHistory() == false, "no history made")
        let history = try file.history(of: store)
        store.dispatch(.note("one"))
        #expect(try await file.saveHistory() == true)
        // A history of another store is not the file's: not saved.
        let other = Store(state: file.state, reducer: CrashModel.reduce)
        let path2 = Self.path("other")
        let file2 = try PersistentState(path: path2, initial: CrashModel.initial())
        try file2.keepSaving(store)
        _ = try file2.history(of: other)
        other.dispatch(.note("elsewhere"))
        #expect(try await file2.saveHistory() == false)
        try file2.close()
        _ = history
        try file.close()
    }

    @Test func aMigrationDropsTheHistory() throws {
        let path = Self.path()
        try Self.saveSession(path, CrashModel.actions(seed: 16, count: 5))
        let v2 = CrashModel.StateV2(titles: [], done: [], note: "", step: -1)
        let migrated = try PersistentState(
            path: path, options: .init(version: 2),
            migrations: [.from(version: 1, S.self, convert: CrashModel.migrate)], initial: v2)
        try migrated.close()
        // The migrated file's sequence is the old one's: only the deletion
        // keeps the old type's patches from being restored.
        let file = try PersistentState(path: path, options: .init(version: 2), initial: v2)
        let store = Store(state: file.state) { (state: inout CrashModel.StateV2, note: String) in state.note = note }
        try file.keepSaving(store)
        let history = try file.history(of: store)
        #expect(history.indices == 0 ... 0, "the old type's patches are not restored")
        store.dispatch("after")
        try file.close()
        let reopened = try PersistentState(path: path, options: .init(version: 2), initial: v2)
        let second = try reopened.history(of: Store(state: reopened.state) { (state: inout CrashModel.StateV2, note: String) in state.note = note })
        #expect(second.indices == 0 ... 1)
        try reopened.close()
    }

    @Test func aDamagedHistoryRefusesTheFileAndOneThatDoesNotDecodeIsDropped() throws {
        let path = Self.path()
        try Self.saveSession(path, CrashModel.actions(seed: 17, count: 3))
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        // A byte of the history changed: its checksum catches it.
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: "UPDATE faststore_history SET entries = CAST(replace(CAST(entries AS TEXT), 'current', 'cURrent') AS BLOB)")
            }
            try queue.close()
        }
        do {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
            Issue.record("a damaged history was accepted")
        } catch {
            #expect("\(error)".contains("damaged") && "\(error)".contains("faststore_history") && "\(error)".contains("saved history"), "\(error)")
        }
        // Valid bytes (the checksum matches) that are not a history.
        try original.write(to: URL(fileURLWithPath: path))
        do {
            let queue = try DatabaseQueue(path: path)
            let entries = Data(#"{"first":0,"current":9,"patches":[[]]}"#.utf8)
            try queue.write { db in
                try db.execute(sql: "UPDATE faststore_history SET entries = ?, checksum = ?", arguments: [entries, fnv1a(entries)])
            }
            try queue.close()
        }
        let file = try PersistentState(path: path, initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        do {
            _ = try file.history(of: store)
            Issue.record("a history whose current entry is not among its entries was restored")
        } catch {
            #expect("\(error)".contains("current entry 9"), "\(error)")
        }
        #expect(try file.history(of: store).indices == 0 ... 0, "called again: a new history")
        try file.close()
    }

    /// Saves racing with dispatches and moves on other threads (run under
    /// ThreadSanitizer by CI): whatever was saved, the file reopens with a
    /// history whose current entry is its state, every entry rebuilding.
    @Test func savingWhileOtherThreadsDispatchAndMove() async throws {
        let path = Self.path()
        let actions = CrashModel.actions(seed: 18, count: 400)
        do {
            let session = try Session(path, limit: 50)
            let history = try #require(session.history)
            let store = session.store
            let done = (0 ..< 3).map { _ in DispatchSemaphore(value: 0) }
            for worker in 0 ..< 3 {
                Thread {
                    for (index, action) in actions.enumerated() where index % 2 == worker % 2 {
                        if worker == 2 {
                            if index % 3 == 0 { try? history.undo() } else { try? history.redo() }
                        } else {
                            store.dispatch(action)
                        }
                    }
                    done[worker].signal()
                }.start()
            }
            for _ in 0 ..< 20 { try await session.file.saveHistory() }
            for semaphore in done { semaphore.wait() }
            try session.file.close()
        }
        let session = try Session(path, limit: 50)
        let history = try #require(session.history)
        #expect(Self.same(history[history.currentIndex]!.state, session.store.state))
        for index in history.indices {
            try history.jump(to: index)
            #expect(Self.same(history[index]!.state, session.store.state), "entry \(index)")
        }
        try session.file.close()
    }

    /// The durability claim, by a kill: a history saved by `saveHistory()`
    /// is restored after the process is killed (no close); a batch saved
    /// after it leaves it behind.
    @Test(arguments: [(extra: 0, undos: 3), (extra: 0, undos: 0), (extra: 2, undos: 3)])
    func aSavedHistorySurvivesAKill(extra: Int, undos: Int) throws {
        let path = Self.path()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: PersistenceCrashTests.childPath)
        child.arguments = ["history", path, "12", String(undos), String(extra)]
        let output = Pipe()
        child.standardOutput = output
        let reader = OutputReader(output.fileHandleForReading)
        try child.run()
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL)
        #expect(reader.lines().filter { !$0.isEmpty } == ["saved"])
        let actions = CrashModel.actions(seed: 7, count: 12 + extra)
        let session = try Session(path)
        let history = try #require(session.history)
        if extra == 0 {
            #expect(history.indices == 0 ... 12 && history.currentIndex == 12 - undos)
            #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 12 - undos)))
            try history.jump(to: 0)
            #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 0)))
            try history.jump(to: 12)
            #expect(Self.same(session.store.state, CrashModel.reference(actions, count: 12)))
        } else {
            #expect(history.indices == 0 ... 0, "a batch saved after the history leaves it behind")
            var expected = CrashModel.reference(actions, count: 12 - undos)
            for action in actions.dropFirst(12) { CrashModel.reduce(&expected, action) }
            #expect(Self.same(session.store.state, expected))
        }
        try session.file.close()
    }
}

/// 64-bit FNV-1a as a signed integer: the state file's blob checksum,
/// written again here to forge a blob whose checksum matches.
func fnv1a(_ data: Data) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01b3
    }
    return Int64(bitPattern: hash)
}

import FastStore
@_spi(Testing) import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import GRDB
import Testing

typealias S = CrashModel.State

@Suite struct PersistentStateTests {
    @Test func aNewFileStartsFromInitialAndReopensToTheSavedState() async throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let actions = CrashModel.actions(seed: 1, count: 300)
        do {
            let file = try PersistentState(path: path, initial: CrashModel.initial())
            #expect(CrashModel.canonical(file.state) == CrashModel.canonical(CrashModel.initial()))
            let store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store)
            for action in actions { store.dispatch(action) }
            try await file.flush()
            try file.close()
        }
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(reopened.state.step == 300)
        #expect(CrashModel.canonical(reopened.state) == CrashModel.canonical(CrashModel.reference(actions, count: 300)))
        try reopened.close()
    }

    @Test(arguments: [1, 3, 1_000])
    func everyFlushedBatchIsInTheFileWhateverTheCompaction(compactAfter: Int) throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let actions = CrashModel.actions(seed: UInt64(compactAfter), count: 200)
        let file = try PersistentState(path: path, options: .init(compactAfter: compactAfter), initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        for (index, action) in actions.enumerated() {
            store.dispatch(action)
            if index % 7 == 0 { try file.waitUntilSaved() }
        }
        try file.waitUntilSaved()
        // NB: another owner may open it only once this one closed.
        try file.close()
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(CrashModel.canonical(reopened.state) == CrashModel.canonical(store.state))
        try reopened.close()
    }

    @Test func aStoreThatMovedOnBeforeSavingBeganIsSavedFromItsCurrentState() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let file = try PersistentState(path: path, initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        store.dispatch(.note("before saving began"))
        store.waitUntilIdle()
        try file.keepSaving(store)
        try file.waitUntilSaved()
        try file.close()
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(reopened.state.note == "before saving began")
        try reopened.close()
    }

    @Test func groupedWritesSaveEveryBatchByTheFlush() async throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let file = try PersistentState(path: path, options: .init(durability: .grouped(.seconds(60))), initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        for action in CrashModel.actions(seed: 9, count: 50) { store.dispatch(action) }
        try await file.flush()  // writes at once, though the interval is a minute
        try file.close()
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(reopened.state.step == 50)
        try reopened.close()
    }

    @Test func aSecondOwnerIsRefusedUntilTheFirstCloses() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let first = try PersistentState(path: path, initial: CrashModel.initial())
        #expect {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
        } throws: { error in
            guard case .fileInUse(let p) = error as? PersistentStateError else { return false }
            return p == path
        }
        try first.close()
        let second = try PersistentState(path: path, initial: CrashModel.initial())
        try second.close()
    }

    @Test func savingASecondStoreOrAfterClosingIsRefused() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let file = try PersistentState(path: path, initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        #expect(throws: PersistentStateError.self) { try file.keepSaving(store) }
        try file.close()
        #expect(throws: PersistentStateError.self) { try file.keepSaving(Store(state: file.state, reducer: CrashModel.reduce)) }
        #expect(throws: PersistentStateError.self) { try file.waitUntilSaved() }
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAsItWas() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
        } throws: { error in
            guard case .unreadableFile = error as? PersistentStateError else { return false }
            return true
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    @Test func anotherDatabaseIsRefusedAndLeftAsItWas() throws {
        let path = temporaryDirectory().appendingPathComponent("other.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
            try queue.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
        } throws: { error in
            guard case .notAStateFile(_, let reason) = error as? PersistentStateError else { return false }
            return reason.contains("notes")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    struct Before: Codable, Sendable { var items: [Item]; struct Item: Codable, Sendable { var name: String } }
    struct After: Codable, Sendable { var items: [Item]; struct Item: Codable, Sendable { var name: Int } }

    @Test func aStateWhoseShapeChangedIsRefusedNamingThePath() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        try PersistentState(path: path, initial: Before(items: [.init(name: "a"), .init(name: "b")])).close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            _ = try PersistentState(path: path, initial: After(items: []))
        } throws: { error in
            guard case .stateDoesNotDecode(_, let codingPath, _) = error as? PersistentStateError else { return false }
            return codingPath == "items[0].name"
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aFileOfAnotherVersionIsRefused() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        try PersistentState(path: path, initial: CrashModel.initial()).close()
        #expect {
            _ = try PersistentState(path: path, options: .init(version: 2), initial: CrashModel.initial())
        } throws: { error in
            guard case .versionMismatch(_, let saved, let expected) = error as? PersistentStateError else { return false }
            return saved == 1 && expected == 2
        }
    }

    @Test func aPatchThatDoesNotApplyIsRefusedNamingItsBatch() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        do {
            let file = try PersistentState(path: path, initial: CrashModel.initial())
            let store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store)
            store.dispatch(.toggle(3))
            try file.waitUntilSaved()
            store.dispatch(.rename(4, "four"))
            try file.waitUntilSaved()
            try file.close()
        }
        // Batch 1 rewritten to toggle row 3 from true (it was false): the
        // log no longer fits the snapshot. Its checksum is rewritten too.
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                let patch = try Data.fetchOne(db, sql: "SELECT patch FROM faststore_log WHERE sequence = 1")!
                // NB: the patch is binary (the mark 0xFA 0x01, then a `set` at
                // `rows[id: 3].done` whose old and new values follow the
                // field's name: `false`, 2, and `true`, 3).
                var edited = patch
                #expect(Array(patch.prefix(2)) == [0xFA, 0x01])
                let done = try #require(patch.range(of: Data("done".utf8) + Data([2, 3])), "\(Array(patch))")
                edited[done.upperBound - 2] = 3
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in edited { hash ^= UInt64(byte); hash &*= 0x0000_0100_0000_01b3 }
                try db.execute(sql: "UPDATE faststore_log SET patch = ?, checksum = ? WHERE sequence = 1", arguments: [edited, Int64(bitPattern: hash)])
            }
            try queue.close()
        }
        #expect {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
        } throws: { error in
            guard case .patchDoesNotApply(_, let sequence, _) = error as? PersistentStateError else { return false }
            return sequence == 1
        }
    }

    @Test func aFullDiskIsReportedTheStoreKeepsWorkingAndSavingResumes() async throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let reports = ReportLog()
        let file = try PersistentState(
            path: path, options: .init(onSaveFailure: { reports.append($0) }, retryDelay: .milliseconds(20)),
            initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        try file._limitPages(try file._pageCount())
        // A note of 64 KiB needs pages the file may not grow to.
        store.dispatch(.note(String(repeating: "x", count: 65_536)))
        await #expect(throws: PersistentStateError.self) { try await file.flush() }
        #expect(file.saveFailure != nil)
        #expect(store.state.note.count == 65_536)  // the store keeps working in memory
        store.dispatch(.toggle(1))
        #expect(store.state.step == 2)
        try file._limitPages(nil)
        try await file.flush()
        #expect(file.saveFailure == nil)
        #expect(reports.values.first.map { $0 != nil } == true)
        #expect(reports.values.last.map { $0 == nil } == true)  // resumed
        try file.close()
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(CrashModel.canonical(reopened.state) == CrashModel.canonical(store.state))
        try reopened.close()
    }
}

/// What `onSaveFailure` reported, in order.
final class ReportLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [PersistentStateError?] = []
    func append(_ value: PersistentStateError?) { lock.withLock { stored.append(value) } }
    var values: [PersistentStateError?] { lock.withLock { stored } }
}

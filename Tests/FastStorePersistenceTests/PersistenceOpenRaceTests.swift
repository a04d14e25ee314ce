import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The open path's races and gaps (from a review), each made to happen at
/// its step through `PersistenceOptions._openFaults`, so that it happens
/// every run: each test failed before its fix.
@Suite struct PersistenceOpenRaceTests {
    /// A state that says which open wrote it.
    static func state(_ note: String) -> S {
        var state = CrashModel.initial()
        state.note = note
        return state
    }

    /// Runs `body` the first time only (a fault made once).
    final class Once: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        func callAsFunction(_ body: () -> Void) {
            guard lock.withLock({ done ? false : { done = true; return true }() }) else { return }
            body()
        }
    }

    static func identity(_ path: String) -> (UInt64, UInt64)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (UInt64(truncatingIfNeeded: info.st_dev), UInt64(truncatingIfNeeded: info.st_ino))
    }

    /// Whether another `PersistentState` of this process, and another
    /// process, are refused the file at `path` (its owner holding it).
    static func expectOwned(_ path: String, _ comment: Comment) throws {
        do {
            let second = try PersistentState(path: path, initial: state("second"))
            Issue.record("\(comment): a second PersistentState of this process owns the file too")
            try second.close()
        } catch {
            #expect("\(error)".contains("fileInUse"), "\(comment): \(error)")
        }
        let text = try PersistenceOpenRegressionTests.openInAnotherProcess(path)
        #expect(text.contains("refused") && text.contains("fileInUse"), "\(comment): another process: \(text)")
    }

    // MARK: 1. The fallback when `link` fails renamed over a file that appeared meanwhile.

    /// `link` fails as on a file system without hard links; another
    /// `PersistentState` creates the file at the path after the check for
    /// a file there and before the rename. The rename replaced its file:
    /// two owners, one of a file no longer at the path.
    @Test func theRenameAfterAFailedLinkNeverReplacesAFileThatAppeared() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let winner = RegressionBox<PersistentState<S>>()
        let winnersFile = RegressionBox<(UInt64, UInt64)>()
        let once = Once()
        var options = PersistenceOptions()
        options._openFaults.linkError = EPERM
        options._openFaults.placing = { call in
            guard call == "rename" else { return }
            once {
                winner.value = try? PersistentState(path: path, initial: Self.state("winner"))
                winnersFile.value = Self.identity(path)
            }
        }
        do {
            let loser = try PersistentState(path: path, options: options, initial: Self.state("loser"))
            Issue.record("the rename replaced the file another PersistentState had created at the path")
            try loser.close()
        } catch {
            #expect("\(error)".contains("fileInUse"), "\(error)")
        }
        let owner = try #require(winner.value, "the other PersistentState opened")
        #expect(Self.identity(path).map { [$0.0, $0.1] } == winnersFile.value.map { [$0.0, $0.1] }, "its file is still at the path")
        try owner.close()
        #expect(try PersistentState(path: path, initial: Self.state("reopened")).state.note == "winner")
    }

    /// Without hard links and without a race, the new file is renamed into
    /// place.
    @Test func withoutHardLinksTheNewFileIsRenamedIntoPlace() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        var options = PersistenceOptions()
        options._openFaults.linkError = EPERM
        let file = try PersistentState(path: path, options: options, initial: Self.state("new"))
        try Self.expectOwned(path, "renamed into place")
        try file.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["state.sqlite"])
        #expect(try PersistentState(path: path, initial: Self.state("reopened")).state.note == "new")
    }

    // MARK: 3. A file renamed over the path between its lock and SQLite's open.

    /// SQLite opens the path by name: a file renamed over it after it was
    /// opened and locked was the one SQLite read and wrote, owned by no one
    /// (the lock is on the file renamed away).
    @Test func aFileRenamedOverAnExistingFileBeforeSQLiteOpensItIsRefused() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        let other = folder.appendingPathComponent("other.sqlite").path
        try PersistentState(path: path, initial: Self.state("locked")).close()
        try PersistentState(path: other, initial: Self.state("renamed in")).close()
        let renamedIn = try Data(contentsOf: URL(fileURLWithPath: other))
        let once = Once()
        var options = PersistenceOptions()
        options._openFaults.connectionOpening = { _ in once { #expect(rename(other, path) == 0) } }
        try Self.expectRefusedAsReplaced(path, options, folder: folder, renamedIn: renamedIn, locked: "the one renamed away")
        let reopened = try PersistentState(path: path, initial: Self.state("new"))
        #expect(reopened.state.note == "renamed in")
        try Self.expectOwned(path, "reopened")
        try reopened.close()
    }

    /// Opens `path` with `options`, whose fault renames another file over it
    /// before SQLite opens it: expects `fileReplaced`, and the file renamed
    /// in (`renamedIn`, the folder's only file) left as it was.
    static func expectRefusedAsReplaced(
        _ path: String, _ options: PersistenceOptions, folder: URL, renamedIn: Data, locked: String
    ) throws {
        do {
            let file = try PersistentState(path: path, options: options, initial: Self.state("new"))
            Issue.record("opened the file renamed in ('\(file.state.note)'), having locked \(locked)")
            try Self.expectOwned(path, "the file renamed in")
            try file.close()
        } catch {
            guard case .fileReplaced = error as? PersistentStateError else {
                Issue.record("\(error)")
                return
            }
            #expect(try DamageFixture.listing(folder) == ["state.sqlite": renamedIn], "the file renamed in, left as it was")
        }
    }

    /// The same after a new file was moved into place: SQLite's read-write
    /// connection opens the path by name.
    @Test func aFileRenamedOverANewFileBeforeSQLiteOpensItIsRefused() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        let other = folder.appendingPathComponent("other.sqlite").path
        try PersistentState(path: other, initial: Self.state("renamed in")).close()
        let renamedIn = try Data(contentsOf: URL(fileURLWithPath: other))
        let once = Once()
        var options = PersistenceOptions()
        options._openFaults.connectionOpening = { opening in
            guard !opening.contains(".faststore-new-") else { return }
            once { #expect(rename(other, path) == 0) }
        }
        try Self.expectRefusedAsReplaced(path, options, folder: folder, renamedIn: renamedIn, locked: "the new one it made")
    }

    // MARK: 2. SQLite's own unlock released the lock between processes.

    /// SQLite releases its locks on a file in rollback-journal mode at the
    /// end of each transaction by unlocking the whole file, which releases
    /// every POSIX lock of the process on it, this open's too. A state file
    /// switched to that mode by another tool was opened, switched back to
    /// WAL by the open, and left unlocked: another process was let in.
    @Test func aFileInRollbackJournalModeStaysOwnedOnceOpened() async throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        try PersistentState(path: path, initial: Self.state("saved")).close()
        let queue = try DatabaseQueue(path: path)
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
        try queue.close()
        let file = try PersistentState(path: path, initial: Self.state("new"))
        #expect(file.state.note == "saved")
        try Self.expectOwned(path, "a file opened in rollback-journal mode")
        try file.close()
    }

    // MARK: 4. A failed sync of the folder once the new file was in it was ignored.

    /// The folder's sync fails (an I/O error): a crash could lose the new
    /// file's name, and with it every batch acknowledged in it. The open
    /// went on as if it were on disk.
    @Test func aFailedSyncOfTheFolderFailsTheOpenAndLeavesNoFile() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        var options = PersistenceOptions()
        options._openFaults.folderSyncError = EIO
        do {
            let file = try PersistentState(path: path, options: options, initial: Self.state("new"))
            Issue.record("opened although the sync of its folder failed")
            try file.close()
        } catch {
            guard case .saveFailed(_, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(reason.contains("cannot sync its folder"), "\(reason)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        }
        // A file system that cannot sync a folder at all: nothing to do.
        options._openFaults.folderSyncError = EINVAL
        let file = try PersistentState(path: path, options: options, initial: Self.state("new"))
        try Self.expectOwned(path, "where folders cannot be synced")
        try file.close()
    }
}

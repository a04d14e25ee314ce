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

/// Opening, from a check made from outside through the public API: each
/// test failed (or crashed the test process) before its fix.
@Suite struct PersistenceOpenRegressionTests {
    // MARK: 1. A column read as the wrong type crashed the app at open (GRDB's `try!`).

    @Test(arguments: [
        ("faststore_snapshot", "UPDATE faststore_snapshot SET sequence = 'x'"),
        ("faststore_snapshot", "UPDATE faststore_snapshot SET checksum = 'x'"),
        ("faststore_log", "UPDATE faststore_log SET checksum = 'x' WHERE sequence = (SELECT max(sequence) FROM faststore_log)"),
        ("faststore_meta", "UPDATE faststore_meta SET value = NULL WHERE key = 'version'"),
        ("faststore_history", "UPDATE faststore_history SET entries = 7"),
        // Numbers no save reaches: counting on from them overflowed (a trap
        // at open, or in the saver after it; from a review).
        ("faststore_snapshot", "UPDATE faststore_snapshot SET sequence = 9223372036854775807"),
        ("faststore_snapshot", "UPDATE faststore_snapshot SET sequence = 9223372036854775806"),
        ("faststore_snapshot", "UPDATE faststore_snapshot SET sequence = -2"),
        ("faststore_history", "UPDATE faststore_history SET sequence = 9223372036854775807"),
    ])
    func aHandEditedColumnIsRefusedNamingItsTableAndRow(table: String, sql: String) async throws {
        let folder = temporaryDirectory()
        let fixture = try await DamageFixture.make(in: folder)
        let caseFolder = try DamageFixture.write(fixture.closed, under: folder, "case")
        try DamageFixture.edit(caseFolder.appendingPathComponent("state.sqlite").path, table: table, sql)
        guard case .refused(let error) = try fixture.open(caseFolder, sql) else {
            Issue.record("\(sql): opened")
            return
        }
        #expect("\(error)".contains(table) && "\(error)".contains("row"), "\(sql): \(error)")
    }

    @Test func aMainFileTruncatedBesideItsWALOrZeroedInTheMiddleDoesNotCrash() async throws {
        let folder = temporaryDirectory()
        let fixture = try await DamageFixture.make(in: folder)
        for length in [4_096, 5_120, 6_144] {
            var files = fixture.crashed
            files["state.sqlite"] = files["state.sqlite"]!.prefix(length)
            try fixture.open(try DamageFixture.write(files, under: folder, "truncated\(length)"), "truncated to \(length) beside its WAL")
        }
        var files = fixture.closed
        let main = files["state.sqlite"]!
        let start = min(6_928, main.count - 1)
        files["state.sqlite"]!.replaceSubrange(start ..< min(start + 2_141, main.count), with: Data(count: min(2_141, main.count - start)))
        try fixture.open(try DamageFixture.write(files, under: folder, "zeroed"), "2,141 bytes zeroed at \(start)")
    }

    /// A logged patch that does not decode (its checksum right: written so)
    /// is damage of that log row, not "not a state file".
    @Test func aLoggedPatchThatDoesNotDecodeIsNamedAsDamageOfItsRow() async throws {
        let folder = temporaryDirectory()
        let fixture = try await DamageFixture.make(in: folder)
        let caseFolder = try DamageFixture.write(fixture.closed, under: folder, "case")
        let patch = Data("{\"nonsense\":1}".utf8)
        try DamageFixture.edit(
            caseFolder.appendingPathComponent("state.sqlite").path, table: "faststore_log",
            "UPDATE faststore_log SET patch = ?, checksum = ? WHERE sequence = (SELECT max(sequence) FROM faststore_log)",
            [patch, DamageFixture.checksum(patch)])
        guard case .refused(let error) = try fixture.open(caseFolder, "an undecodable patch") else {
            Issue.record("an undecodable patch: opened")
            return
        }
        #expect("\(error)".contains("damaged") && "\(error)".contains("faststore_log") && "\(error)".contains("30"), "\(error)")
    }

    // MARK: 3. An empty file, and what a refused open or a close leaves.

    @Test func anExistingEmptyFileIsRefusedAndLeftAsItWas() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        #expect {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
        } throws: { error in
            "\(error)".contains("empty")
        }
        #expect(try DamageFixture.listing(folder) == ["state.sqlite": Data()])
    }

    @Test func aRefusedOpenLeavesTheFolderAsItWas() async throws {
        let folder = temporaryDirectory()
        let fixture = try await DamageFixture.make(in: folder)
        let caseFolder = try DamageFixture.write(fixture.closed, under: folder, "case")
        try DamageFixture.edit(caseFolder.appendingPathComponent("state.sqlite").path, table: "faststore_snapshot",
                               "UPDATE faststore_snapshot SET checksum = checksum + 1")
        guard case .refused = try fixture.open(caseFolder, "a wrong checksum") else {
            Issue.record("a wrong checksum: opened")
            return
        }
    }

    @Test func aClosedFileLeavesNothingBesideIt() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        let file = try PersistentState(path: path, initial: CrashModel.initial())
        try file.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["state.sqlite"])
    }

    // MARK: 2. One owner per file, however its path is spelled.

    /// The same file through a symlink, a hard link, a path with `..`, and
    /// a relative path.
    /// What the child process prints when it opens `path` (`opened`, or
    /// `refused` and the error).
    static func openInAnotherProcess(_ path: String) throws -> String {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: PersistenceCrashTests.childPath)
        child.arguments = ["open", path]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        return text
    }

    static func spellings(of path: String, in folder: URL) throws -> [(String, String)] {
        let symlink = folder.appendingPathComponent("link.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: path)
        let hardLink = folder.appendingPathComponent("hard.sqlite").path
        #expect(link(path, hardLink) == 0)
        let sub = folder.appendingPathComponent("sub")
        try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
        let dotDot = sub.path + "/../" + (path as NSString).lastPathComponent
        // NB: relative to the working directory, which no test changes.
        let cwd = FileManager.default.currentDirectoryPath
        let depth = cwd.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + path.drop(while: { $0 == "/" })
        return [("a symlink", symlink), ("a hard link", hardLink), ("a path with ..", dotDot), ("a relative path", relative)]
    }

    @Test func aSecondOwnerInThisProcessIsRefusedHoweverThePathIsSpelled() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        let first = try PersistentState(path: path, initial: CrashModel.initial())
        for (name, spelling) in try Self.spellings(of: path, in: folder) {
            do {
                let second = try PersistentState(path: spelling, initial: CrashModel.initial())
                Issue.record("through \(name) ('\(spelling)'): a second owner was accepted")
                try second.close()
            } catch {
                #expect("\(error)".contains("fileInUse"), "through \(name): \(error)")
            }
        }
        // Regression (a review): each refusal here closed a descriptor of the
        // owned file, which drops every POSIX lock this process holds on it:
        // another process was then let in beside the owner.
        let text = try Self.openInAnotherProcess(path)
        #expect(text.contains("refused") && text.contains("fileInUse"), "another process after refusals here: \(text)")
        try first.close()
        // Released: it opens through another spelling now.
        let again = try PersistentState(path: folder.appendingPathComponent("link.sqlite").path, initial: CrashModel.initial())
        try again.close()
    }

    @Test func aSecondOwnerInAnotherProcessIsRefusedThroughASymlinkOrAHardLink() throws {
        #expect(FileManager.default.isExecutableFile(atPath: PersistenceCrashTests.childPath))
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        let first = try PersistentState(path: path, initial: CrashModel.initial())
        let spellings = try Self.spellings(of: path, in: folder)
        for (name, spelling) in spellings where name == "a symlink" || name == "a hard link" {
            let text = try Self.openInAnotherProcess(spelling)
            #expect(text.contains("refused") && text.contains("fileInUse"), "another process through \(name): \(text)")
        }
        try first.close()
        // And the other way round: the other process owns the file.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: PersistenceCrashTests.childPath)
        child.arguments = ["hold", path]
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        var seen = Data()
        while !String(decoding: seen, as: UTF8.self).contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        #expect(String(decoding: seen, as: UTF8.self).hasPrefix("opened"))
        for (name, spelling) in spellings where name == "a symlink" || name == "a hard link" {
            #expect(throws: PersistentStateError.self, "through \(name) while another process owns it") {
                let second = try PersistentState(path: spelling, initial: CrashModel.initial())
                try second.close()
            }
        }
        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
    }

    // MARK: 4. A foreign file's hot journal was rolled back by the open that refused it.

    /// Another program's SQLite file in rollback-journal mode, copied with
    /// its `-journal` in the middle of a write transaction that spilled
    /// changed pages into the file (what a crash of that program leaves): a
    /// hot journal, which the next read-write connection rolls back (the
    /// file's pages rewritten, the journal removed) before reading anything.
    /// Copied as `state.sqlite` into a new folder under `folder` for each
    /// of `copies`.
    static func foreignFileWithAHotJournal(in folder: URL, copies: [String]) throws -> [URL] {
        let source = folder.appendingPathComponent("notes.sqlite").path
        let targets = try copies.map { name in
            let target = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            return target
        }
        let queue = try DatabaseQueue(path: source)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "CREATE TABLE notes (body TEXT)")
            try db.inTransaction {
                for i in 0 ..< 2_000 {
                    try db.execute(sql: "INSERT INTO notes (body) VALUES (?)", arguments: [String(repeating: "n", count: 200) + "\(i)"])
                }
                return .commit
            }
            let committed = try Data(contentsOf: URL(fileURLWithPath: source))
            // NB: a cache of two pages: the update spills its pages into the
            // file while the transaction is open.
            try db.execute(sql: "PRAGMA cache_size = 2")
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "UPDATE notes SET body = 'changed ' || body")
            #expect(try Data(contentsOf: URL(fileURLWithPath: source)) != committed, "the open transaction wrote into the file")
            for target in targets {
                for suffix in ["", "-journal"] {
                    try FileManager.default.copyItem(atPath: source + suffix, toPath: target.appendingPathComponent("state.sqlite" + suffix).path)
                }
            }
            try db.execute(sql: "ROLLBACK")
        }
        try queue.close()
        return targets
    }

    @Test func aForeignFileWithAHotJournalIsRefusedAndLeftAsItWas() throws {
        let folder = temporaryDirectory()
        let copies = try Self.foreignFileWithAHotJournal(in: folder, copies: ["case", "control"])
        let before = try DamageFixture.listing(copies[0])
        #expect(before.keys.sorted() == ["state.sqlite", "state.sqlite-journal"])
        #expect {
            _ = try PersistentState(path: copies[0].appendingPathComponent("state.sqlite").path, initial: CrashModel.initial())
        } throws: { error in
            guard case .unreadableFile(_, let reason) = error as? PersistentStateError else { return false }
            return reason.contains("hot journal")
        }
        try DamageFixture.expectUnchanged(copies[0], before, "a foreign file with a hot journal, refused")
        // The fixture is what it claims: a read-write connection's first
        // read rolls the journal back.
        let queue = try DatabaseQueue(path: copies[1].appendingPathComponent("state.sqlite").path)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM notes") } == 2_000)
        try queue.close()
        #expect(try DamageFixture.listing(copies[1]).keys.sorted() == ["state.sqlite"], "the control copy's journal was rolled back")
    }

    // MARK: 5. An open that failed after the file was accepted checkpointed its WAL (a review).

    /// A state file whose `-wal` holds committed frames (a crash's), where
    /// preparing the accepted file fails: an index named like the history
    /// table that the open creates (a file another tool wrote). The failed
    /// open had turned checkpoint-on-close back on: its close wrote the WAL
    /// into the file and removed the WAL.
    @Test func anOpenFailingAfterTheFileWasAcceptedLeavesItsWALWhereItWas() async throws {
        let folder = temporaryDirectory()
        let fixture = try await DamageFixture.make(in: folder)
        let source = try DamageFixture.write(fixture.closed, under: folder, "source").appendingPathComponent("state.sqlite").path
        let caseFolder = folder.appendingPathComponent("case")
        try FileManager.default.createDirectory(at: caseFolder, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: source)
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE faststore_history")
            try db.execute(sql: "CREATE INDEX faststore_history ON faststore_log (sequence)")
        }
        try CounterModel.crashCopy(source, to: caseFolder.appendingPathComponent("state.sqlite").path)
        try queue.close()
        let before = try DamageFixture.listing(caseFolder)
        #expect(before.keys.sorted() == ["state.sqlite", "state.sqlite-wal"])
        #expect {
            _ = try PersistentState(path: caseFolder.appendingPathComponent("state.sqlite").path, initial: CrashModel.initial())
        } throws: { error in
            "\(error)".contains("already an index named faststore_history")
        }
        try DamageFixture.expectUnchanged(caseFolder, before, "an open that failed preparing the accepted file")
    }
}

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
}

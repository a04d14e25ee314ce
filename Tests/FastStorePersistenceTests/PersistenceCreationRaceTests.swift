import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creating a new file while another open creates it too (from a review):
/// between deciding that no file is at the path and putting the new one
/// there, another open may create it, and another process's clean-up of
/// stale creations may remove the hidden file being written. The
/// deterministic tests make each interleaving happen through
/// `PersistenceOptions._openFaults` and failed before the fix; the race
/// tests run the real thing many times (`FASTSTORE_OPEN_RACE_ROUNDS`).
@Suite struct PersistenceCreationRaceTests {
    typealias Race = PersistenceOpenRaceTests

    /// The hidden file removed by another process's clean-up before this
    /// process locked it: SQLite, opening the hidden name, made a new file
    /// there, which was moved into place while the lock stayed on the one
    /// removed: a second owner was let in.
    @Test func aHiddenFileTakenByAnotherProcessesCleanUpIsNeverMovedIntoPlace() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        let once = Race.Once()
        var options = PersistenceOptions()
        options._openFaults.hiddenFileCreated = { hidden in once { #expect(unlink(hidden) == 0) } }
        let file = try PersistentState(path: path, options: options, initial: Race.state("new"))
        try Race.expectOwned(path, "the file created after the clean-up took the first one")
        try file.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["state.sqlite"])
    }

    /// Another process created the file between this open's open of the
    /// path, which found none, and its check for a symbolic link to
    /// nothing: this open opens that file. Before, it was refused as "a
    /// symbolic link to a missing file" (seen once in CI, in
    /// `twoProcessesCreatingTheSameFileNeverBothOwnIt`).
    @Test func aFileCreatedRightAfterTheOpenFoundNoneIsOpened() throws {
        let folder = temporaryDirectory()
        let path = folder.appendingPathComponent("state.sqlite").path
        let prepared = folder.appendingPathComponent("prepared.sqlite").path
        try PersistentState(path: prepared, initial: Race.state("created meanwhile")).close()
        let once = Race.Once()
        var options = PersistenceOptions()
        options._openFaults.foundNoFile = { missing in once { #expect(rename(prepared, missing) == 0) } }
        let file = try PersistentState(path: path, options: options, initial: Race.state("new"))
        #expect(file.state.note == "created meanwhile")
        try Race.expectOwned(path, "the file created meanwhile, opened")
        try file.close()
    }

    /// Another open created the file, and closed it, between this one's
    /// decision that no file was there and its move: this one opens it
    /// (before, it was refused with `fileInUse`, no one having it open).
    @Test func anOpenThatLosesTheCreationToAClosedFileOpensIt() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let once = Race.Once()
        var options = PersistenceOptions()
        options._openFaults.placing = { call in
            guard call == "link" else { return }
            once { #expect(throws: Never.self) { try PersistentState(path: path, initial: Race.state("winner")).close() } }
        }
        let file = try PersistentState(path: path, options: options, initial: Race.state("loser"))
        #expect(file.state.note == "winner")
        try Race.expectOwned(path, "the winner's file, opened")
        try file.close()
    }

    /// The clean-up took the `-wal` and `-shm` of another process's hidden
    /// file for stale ones (their names start like it, and no lock is on
    /// them): a creation under way lost them. A state file named like a
    /// hidden one, held by a child process, stands for it.
    @Test func theCleanUpLeavesTheFilesBesideAHiddenFileThatIsLocked() throws {
        let folder = temporaryDirectory()
        let hidden = folder.appendingPathComponent(".state.sqlite.faststore-new-" + UUID().uuidString).path
        let child = Process()
        child.executableURL = URL(fileURLWithPath: PersistenceCrashTests.childPath)
        child.arguments = ["hold", hidden]
        let input = Pipe()
        let output = Pipe()
        child.standardInput = input
        child.standardOutput = output
        try child.run()
        #expect(Self.firstLine(output).hasPrefix("opened"))
        let beside = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
        #expect(beside.contains((hidden as NSString).lastPathComponent + "-wal"), "\(beside)")
        // A crash's leftovers beside it: a hidden file no one locks, its WAL.
        let stale = folder.appendingPathComponent(".state.sqlite.faststore-new-" + UUID().uuidString).path
        for suffix in ["", "-wal"] { #expect(FileManager.default.createFile(atPath: stale + suffix, contents: Data("x".utf8))) }
        let file = try PersistentState(path: folder.appendingPathComponent("state.sqlite").path, initial: Race.state("new"))
        try file.close()
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path)) == beside.union(["state.sqlite"]))
        try input.fileHandleForWriting.close()
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
    }

    /// The first line a child prints.
    static func firstLine(_ output: Pipe) -> String {
        var seen = Data()
        while !seen.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen.append(chunk)
        }
        return String(decoding: seen, as: UTF8.self)
    }

    static var rounds: Int {
        ProcessInfo.processInfo.environment["FASTSTORE_OPEN_RACE_ROUNDS"].flatMap(Int.init) ?? 50
    }

    /// Two `PersistentState`s of this process create the same new file at
    /// once: one owns it, the other is refused, and the file at the path
    /// is the owner's (run under ThreadSanitizer too).
    @Test func twoThreadsCreatingTheSameFileNeverBothOwnIt() throws {
        let folder = temporaryDirectory()
        for round in 0 ..< Self.rounds {
            let path = folder.appendingPathComponent("state\(round).sqlite").path
            let opened = RegressionBox<[(Int, PersistentState<S>)]>()
            let refusals = RegressionBox<[String]>()
            opened.value = []
            refusals.value = []
            let lock = NSLock()
            DispatchQueue.concurrentPerform(iterations: 2) { opener in
                do {
                    let file = try PersistentState(path: path, initial: Race.state("opener \(opener)"))
                    lock.withLock { opened.value!.append((opener, file)) }
                } catch {
                    lock.withLock { refusals.value!.append("\(error)") }
                }
            }
            let owners = opened.value!
            try #require(owners.count == 1, "round \(round): \(owners.count) owners, refusals: \(refusals.value!)")
            #expect(refusals.value!.allSatisfy { $0.contains("fileInUse") }, "round \(round): \(refusals.value!)")
            #expect(throws: PersistentStateError.self, "round \(round): a third PersistentState") {
                try PersistentState(path: path, initial: Race.state("third")).close()
            }
            let (winner, file) = owners[0]
            try file.close()
            let reopened = try PersistentState(path: path, initial: Race.state("reopened"))
            #expect(reopened.state.note == "opener \(winner)", "round \(round)")
            try reopened.close()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasPrefix(".") })
    }

    /// Two processes create the same new file at once: one owns it, the
    /// other is refused (`fileInUse`), and so is this process while the
    /// owner holds it.
    @Test func twoProcessesCreatingTheSameFileNeverBothOwnIt() throws {
        let folder = temporaryDirectory()
        for round in 0 ..< Self.rounds {
            let path = folder.appendingPathComponent("state\(round).sqlite").path
            var children: [(Process, Pipe, Pipe)] = []
            for _ in 0 ..< 2 {
                let child = Process()
                child.executableURL = URL(fileURLWithPath: PersistenceCrashTests.childPath)
                child.arguments = ["hold", path]
                let input = Pipe()
                let output = Pipe()
                child.standardInput = input
                child.standardOutput = output
                children.append((child, input, output))
            }
            for (child, _, _) in children { try child.run() }
            let lines = children.map { Self.firstLine($0.2) }
            let owners = lines.filter { $0.hasPrefix("opened") }.count
            #expect(owners == 1, "round \(round): \(lines)")
            #expect(lines.allSatisfy { $0.hasPrefix("opened") || $0.contains("fileInUse") }, "round \(round): \(lines)")
            #expect(throws: PersistentStateError.self, "round \(round): this process, while a child holds the file") {
                try PersistentState(path: path, initial: Race.state("third")).close()
            }
            for (child, input, _) in children {
                try input.fileHandleForWriting.close()
                child.waitUntilExit()
            }
            try PersistentState(path: path, initial: Race.state("reopened")).close()
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.hasPrefix(".") })
    }
}

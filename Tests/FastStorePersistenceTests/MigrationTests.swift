import FastStore
@_spi(Testing) import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import GRDB
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

typealias V2 = CrashModel.StateV2

/// Opening a file of an earlier version through a `PersistentState.Migration`:
/// the old snapshot and log, converted, rewritten as the current version; a
/// failure leaves the file as it was; a kill during the migration leaves
/// the old file or the new one, never another.
@Suite struct MigrationTests {
    static let migration = PersistentState<V2>.Migration.from(version: 1, CrashModel.State.self, convert: CrashModel.migrate)
    static let emptyV2 = V2(titles: [], done: [], note: "", step: -1)

    /// A version 1 file holding `count` seeded actions, some in the
    /// snapshot and some in the log (compacted every 7).
    static func makeVersion1File(_ path: String, seed: UInt64, count: Int) throws -> CrashModel.State {
        let actions = CrashModel.actions(seed: seed, count: count)
        let file = try PersistentState(path: path, options: .init(compactAfter: 7), initial: CrashModel.initial())
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        for action in actions {
            store.dispatch(action)
            try file.waitUntilSaved()
        }
        try file.close()
        return CrashModel.reference(actions, count: count)
    }

    /// The `version` the file's meta table holds.
    static func savedVersion(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try Int(String.fetchOne(db, sql: "SELECT value FROM faststore_meta WHERE key = 'version'")!)! }
    }

    @Test func aFileOfAnEarlierVersionOpensConvertedAndIsRewritten() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let reference = try Self.makeVersion1File(path, seed: 11, count: 40)
        let expected = try CrashModel.migrate(reference)
        do {
            let file = try PersistentState(path: path, options: .init(version: 2), migrations: [Self.migration], initial: Self.emptyV2)
            #expect(file.state == expected)
            // The migrated file saves on as version 2.
            let store = Store(state: file.state) { (state: inout V2, note: String) in state.note = note; state.step += 1 }
            try file.keepSaving(store)
            store.dispatch("after the migration")
            try file.waitUntilSaved()
            try file.close()
        }
        #expect(try Self.savedVersion(path) == 2)
        // Version 2 without a migration: the converted state, then the batch.
        let reopened = try PersistentState(path: path, options: .init(version: 2), initial: Self.emptyV2)
        #expect(reopened.state.note == "after the migration" && reopened.state.step == expected.step + 1)
        #expect(reopened.state.titles == expected.titles && reopened.state.done == expected.done)
        try reopened.close()
        // And version 1 is refused now.
        #expect {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
        } throws: { error in
            guard case .versionMismatch(_, let saved, let expected) = error as? PersistentStateError else { return false }
            return saved == 2 && expected == 1
        }
    }

    @Test func aConversionThatThrowsLeavesTheFileAsItWas() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "no conversion for this file" } }
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let reference = try Self.makeVersion1File(path, seed: 12, count: 20)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let failing = PersistentState<V2>.Migration.from(version: 1, CrashModel.State.self) { _ in throw Refused() }
        #expect {
            _ = try PersistentState(path: path, options: .init(version: 2), migrations: [failing], initial: Self.emptyV2)
        } throws: { error in
            guard case .migrationFailed(_, let from, let reason) = error as? PersistentStateError else { return false }
            return from == 1 && reason.contains("no conversion for this file") && "\(error)".contains("left as it was")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(CrashModel.canonical(reopened.state) == CrashModel.canonical(reference))
        try reopened.close()
    }

    @Test func anOldTypeThatDoesNotDecodeTheFileIsRefusedNamingThePath() throws {
        struct WrongOld: Codable, Sendable { var rows: [Int] }
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        _ = try Self.makeVersion1File(path, seed: 13, count: 5)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let wrong = PersistentState<V2>.Migration.from(version: 1, WrongOld.self) { _ in Self.emptyV2 }
        #expect {
            _ = try PersistentState(path: path, options: .init(version: 2), migrations: [wrong], initial: Self.emptyV2)
        } throws: { error in
            guard case .stateDoesNotDecode(_, let codingPath, _) = error as? PersistentStateError else { return false }
            return codingPath.hasPrefix("rows[0]")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func aMigrationFromAnotherVersionDoesNotOpenTheFile() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        _ = try Self.makeVersion1File(path, seed: 14, count: 5)
        let fromZero = PersistentState<V2>.Migration.from(version: 0, CrashModel.State.self, convert: CrashModel.migrate)
        #expect {
            _ = try PersistentState(path: path, options: .init(version: 2), migrations: [fromZero], initial: Self.emptyV2)
        } throws: { error in
            guard case .versionMismatch(_, let saved, let expected) = error as? PersistentStateError else { return false }
            return saved == 1 && expected == 2
        }
    }

    /// A child migrates a copy of a version 1 file and is killed with
    /// SIGKILL at a random moment: each copy then holds version 1 with the
    /// old state, or version 2 with the converted one.
    @Test func aKilledMigrationLeavesTheOldFileOrTheNewOne() throws {
        #expect(FileManager.default.isExecutableFile(atPath: PersistenceCrashTests.childPath))
        let folder = temporaryDirectory()
        let original = folder.appendingPathComponent("original.sqlite").path
        let reference = try Self.makeVersion1File(original, seed: 15, count: 600)
        let expected = try CrashModel.migrate(reference)
        let runs = ProcessInfo.processInfo.environment["FASTSTORE_MIGRATION_KILLS"].flatMap(Int.init) ?? 40
        var rng = SeededGenerator(seed: PersistenceCrashTests.seed)

        func runChild(_ path: String, killAfter microseconds: UInt32?) throws -> [String] {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: PersistenceCrashTests.childPath)
            child.arguments = ["migrate", path]
            let output = Pipe()
            child.standardOutput = output
            let reader = OutputReader(output.fileHandleForReading)
            try child.run()
            if let microseconds {
                usleep(microseconds)
                kill(child.processIdentifier, SIGKILL)
            }
            child.waitUntilExit()
            return reader.lines()
        }
        // How long a whole migration takes here, so that the kills spread over it.
        let timing = folder.appendingPathComponent("timing.sqlite").path
        try FileManager.default.copyItem(atPath: original, toPath: timing)
        let start = ContinuousClock.now
        let timed = try runChild(timing, killAfter: nil)
        #expect(timed.contains("migrated"), "\(timed)")
        let whole = start.duration(to: .now)
        let span = UInt64(max(2_000, whole.components.seconds * 1_000_000 + whole.components.attoseconds / 1_000_000_000_000))

        var old = 0, new = 0
        // NB: the kills spread over the timed migration's span; on a loaded
        // machine a later child may run slower than the timed one, and every
        // kill then lands before the commit. Runs past `runs` kill later and
        // later (the span doubled each time, the last one not at all) until
        // both outcomes were seen: each run is checked the same way.
        var run = 0
        while run < runs || (old == 0 || new == 0) && run < runs + 12 {
            let path = folder.appendingPathComponent("run\(run).sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: path)
            let extra = run - runs
            let killAfter: UInt32? = extra < 0 ? UInt32(rng.next() % (span + span / 4))
                : extra == 11 ? nil
                : new == 0 ? UInt32(min(UInt64(UInt32.max), span << UInt64(extra + 1)))
                : UInt32(rng.next() % (span / 4 + 1))
            defer { run += 1 }
            let lines = try runChild(path, killAfter: killAfter)
            let parameters = "run \(run), kill after \(killAfter.map { "\($0) µs" } ?? "never") of \(span) (FASTSTORE_SEED=\(PersistenceCrashTests.seed))"
            switch try Self.savedVersion(path) {
            case 1:
                #expect(!lines.contains("migrated"), "\(parameters): migrated, yet version 1")
                let file = try PersistentState(path: path, initial: CrashModel.initial())
                #expect(CrashModel.canonical(file.state) == CrashModel.canonical(reference), "\(parameters): version 1, another state")
                try file.close()
                old += 1
            case 2:
                let file = try PersistentState(path: path, options: .init(version: 2), initial: Self.emptyV2)
                #expect(file.state == expected, "\(parameters): version 2, another state")
                try file.close()
                new += 1
            case let version:
                Issue.record("\(parameters): version \(version)")
            }
        }
        // Both outcomes seen: the kills landed before and after the commit.
        #expect(old > 0 && new > 0, "old \(old), new \(new) of \(run)")
    }
}

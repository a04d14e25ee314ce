import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import Foundation
import GRDB
import Testing

/// State files to damage, and what opening a damaged copy may give: the
/// state after some prefix of the actions that wrote them.
///
/// - `closed`: a file closed cleanly (no `-wal`): a snapshot after batch 24
///   (compaction every 8 patches), log rows 25...30, a saved history.
/// - `crashed`: what a kill leaves (the file and its `-wal`): a first session
///   of 15 batches closed, a second one of 15 more copied while open.
struct DamageFixture: Sendable {
    static let batches = 30

    var closed: [String: Data]
    var crashed: [String: Data]
    /// The canonical state after each prefix of the actions (0...30).
    var prefixes: Set<Data>

    static func make(in folder: URL) async throws -> DamageFixture {
        let actions = CrashModel.actions(seed: 0xDA3A_6E01, count: batches)
        let options = PersistenceOptions(compactAfter: 8)
        let closedPath = folder.appendingPathComponent("closed.sqlite").path
        do {
            let file = try PersistentState(path: closedPath, options: options, initial: CrashModel.initial())
            let store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store)
            let history = try file.history(of: store)
            for action in actions {
                store.dispatch(action)
                try file.waitUntilSaved()
            }
            #expect(try await file.saveHistory())
            #expect(history.currentIndex > 0)
            try file.close()
        }
        let crashedPath = folder.appendingPathComponent("crashed.sqlite").path
        let copyPath = folder.appendingPathComponent("crashed-copy.sqlite").path
        for session in 0 ..< 2 {
            let file = try PersistentState(path: crashedPath, options: options, initial: CrashModel.initial())
            let store = Store(state: file.state, reducer: CrashModel.reduce)
            try file.keepSaving(store)
            for action in actions[(session * 15) ..< (session * 15 + 15)] {
                store.dispatch(action)
                try file.waitUntilSaved()
            }
            if session == 1 { try CounterModel.crashCopy(crashedPath, to: copyPath) }
            try file.close()
        }
        let prefixes = Set((0 ... batches).map { CrashModel.canonical(CrashModel.reference(actions, count: $0)) })
        return DamageFixture(
            closed: ["state.sqlite": try Data(contentsOf: URL(fileURLWithPath: closedPath))],
            crashed: [
                "state.sqlite": try Data(contentsOf: URL(fileURLWithPath: copyPath)),
                "state.sqlite-wal": try Data(contentsOf: URL(fileURLWithPath: copyPath + "-wal")),
            ],
            prefixes: prefixes)
    }

    /// Every file in `folder`, by name.
    static func listing(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    /// Writes `files` into a new folder `name` under `parent`.
    static func write(_ files: [String: Data], under parent: URL, _ name: String) throws -> URL {
        let folder = parent.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (file, bytes) in files { try bytes.write(to: folder.appendingPathComponent(file)) }
        return folder
    }

    /// What opening a damaged copy did.
    enum Outcome {
        case opened
        case refused(PersistentStateError)
    }

    /// Opens `folder/state.sqlite`: it must open to a valid prefix (then it
    /// is closed), or throw a `PersistentStateError` and leave every file of
    /// the folder, and the folder's listing, as they were.
    @discardableResult
    func open(_ folder: URL, _ description: String) throws -> Outcome {
        let before = try Self.listing(folder)
        let path = folder.appendingPathComponent("state.sqlite").path
        let opening = Result { () throws(PersistentStateError) in try PersistentState(path: path, initial: CrashModel.initial()) }
        switch opening {
        case .success(let file):
            #expect(prefixes.contains(CrashModel.canonical(file.state)), "\(description): opened to a state no prefix of the batches produced")
            try file.close()
            return .opened
        case .failure(let error):
            try Self.expectUnchanged(folder, before, "\(description): refused (\(error))")
            return .refused(error)
        }
    }

    /// Expects every file of `folder`, and the folder's listing, to be as
    /// `before` (a ``listing(_:)``) holds them.
    static func expectUnchanged(_ folder: URL, _ before: [String: Data], _ description: String) throws {
        let after = try listing(folder)
        #expect(after.keys.sorted() == before.keys.sorted(), "\(description), but the folder now holds \(after.keys.sorted()), not \(before.keys.sorted())")
        for (name, bytes) in before where after[name] != nil && after[name] != bytes {
            Issue.record("\(description), but changed \(name)")
        }
    }

    /// The checksum the state file keeps beside each blob (64-bit FNV-1a,
    /// as SQLite's signed integer): to write a blob that passes it.
    static func checksum(_ data: Data) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Runs `sql` on the file at `path` as a hand edit would, with its
    /// constraints out of the way: CHECK constraints ignored, and a table
    /// whose NOT NULL or key refuses the edit rebuilt without constraints
    /// first (as a file written by another tool may be).
    static func edit(_ path: String, table: String, _ sql: String, _ arguments: StatementArguments = []) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA ignore_check_constraints = 1")
            do {
                try db.execute(sql: sql, arguments: arguments)
            } catch {
                try db.execute(sql: """
                    CREATE TABLE faststore_rebuilt AS SELECT * FROM \(table);
                    DROP TABLE \(table);
                    ALTER TABLE faststore_rebuilt RENAME TO \(table);
                    """)
                try db.execute(sql: sql, arguments: arguments)
            }
        }
        try queue.close()
    }
}

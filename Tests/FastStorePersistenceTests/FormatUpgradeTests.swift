import FastStore
@_spi(Testing) import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import GRDB
import Testing

/// A file of format 1 (every blob JSON: what earlier versions wrote) opens
/// to its state and is upgraded in one transaction: format 2, its snapshot
/// rewritten binary, an empty log, its saved history kept. A file of a
/// format this version does not know is refused, naming the formats.
@Suite struct FormatUpgradeTests {
    /// Writes a format-1 file at `path`: `initial` as a JSON snapshot
    /// (sequence 0), then the JSON patch of each of `actions`.
    static func writeFormatOne(at path: String, actions: [CrashModel.Action]) throws -> CrashModel.State {
        // The schema, as a current file has it, then every blob rewritten.
        do {
            let file = try PersistentState(path: path, initial: CrashModel.initial())
            try file.close()
        }
        var state = CrashModel.initial()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            let snapshot = try JSONEncoder().encode(state)
            try db.execute(sql: "UPDATE faststore_meta SET value = '1' WHERE key = 'format'")
            try db.execute(sql: "UPDATE faststore_snapshot SET sequence = 0, state = ?, checksum = ?",
                           arguments: [snapshot, DamageFixture.checksum(snapshot)])
            try db.execute(sql: "DELETE FROM faststore_log")
            for (k, action) in actions.enumerated() {
                let before = state
                CrashModel.reduce(&state, action)
                let patch = try JSONEncoder().encode(try StatePatch(from: before, to: state))
                #expect(patch.first == UInt8(ascii: "["))
                try db.execute(sql: "INSERT INTO faststore_log (sequence, patch, checksum) VALUES (?, ?, ?)",
                               arguments: [k + 1, patch, DamageFixture.checksum(patch)])
            }
        }
        try queue.close()
        return state
    }

    static func contents(_ path: String) throws -> (format: String?, snapshot: Data?, log: Int) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            (try String.fetchOne(db, sql: "SELECT value FROM faststore_meta WHERE key = 'format'"),
             try Data.fetchOne(db, sql: "SELECT state FROM faststore_snapshot"),
             try Int.fetchOne(db, sql: "SELECT count(*) FROM faststore_log") ?? -1)
        }
    }

    @Test func aFormatOneFileOpensAndIsUpgraded() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        let actions = CrashModel.actions(seed: 0x01D_F11E, count: 60)
        let expected = try Self.writeFormatOne(at: path, actions: actions)
        #expect(try Self.contents(path).format == "1")

        let file = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(CrashModel.canonical(file.state) == CrashModel.canonical(expected))
        let upgraded = try Self.contents(path)
        #expect(upgraded.format == "2")
        #expect(upgraded.snapshot.map { Array($0.prefix(2)) } == [0xFA, 0x01])
        #expect(upgraded.log == 0)

        // It saves on, and opens again to what it saved.
        let store = Store(state: file.state, reducer: CrashModel.reduce)
        try file.keepSaving(store)
        let more = CrashModel.actions(seed: 0x01D_F11F, count: 20).filter {
            if case .toggle = $0 { return true } else { return false }
        }
        for action in more { store.dispatch(action) }
        try file.waitUntilSaved()
        let saved = CrashModel.canonical(store.state)
        try file.close()
        let reopened = try PersistentState(path: path, initial: CrashModel.initial())
        #expect(CrashModel.canonical(reopened.state) == saved)
        try reopened.close()
    }

    @Test func anUnknownFormatIsRefusedNamingTheFormatsRead() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        try PersistentState(path: path, initial: CrashModel.initial()).close()
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "UPDATE faststore_meta SET value = '3' WHERE key = 'format'") }
        try queue.close()
        #expect {
            _ = try PersistentState(path: path, initial: CrashModel.initial())
        } throws: { error in
            guard case .notAStateFile(_, let reason) = error as? PersistentStateError else { return false }
            return reason.contains("'3'") && reason.contains("'1' and '2'")
        }
    }

    struct Wide: Codable, Sendable, Equatable { var value: UInt64 }

    /// A state the binary encoding refuses (an unsigned integer above
    /// `Int64.max`) is written as JSON, and opens again.
    @Test func aStateTheBinaryEncodingRefusesIsSavedAsJSON() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        try PersistentState(path: path, initial: Wide(value: .max)).close()
        let snapshot = try Self.contents(path).snapshot
        #expect(snapshot?.first == UInt8(ascii: "{"))
        let reopened = try PersistentState(path: path, initial: Wide(value: 0))
        #expect(reopened.state == Wide(value: .max))
        try reopened.close()
    }

    /// Reads a key's super decoder it never wrote: JSON hands back a decoder
    /// over null, the binary decoder has no bytes for it.
    struct Asymmetric: Codable, Sendable, Equatable {
        var a: Int
        enum CodingKeys: String, CodingKey { case a }
        init(a: Int) { self.a = a }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            a = try container.decode(Int.self, forKey: .a)
            _ = try container.superDecoder()
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(a, forKey: .a)
        }
    }

    /// A snapshot is written binary only when its bytes decode again: a
    /// state whose `Codable` conformance the binary decoder does not take is
    /// written as JSON, and the file opens.
    @Test func aSnapshotThatWouldNotDecodeIsWrittenAsJSON() throws {
        let path = temporaryDirectory().appendingPathComponent("state.sqlite").path
        try PersistentState(path: path, initial: Asymmetric(a: 3)).close()
        #expect(try Self.contents(path).snapshot?.first == UInt8(ascii: "{"))
        let reopened = try PersistentState(path: path, initial: Asymmetric(a: 0))
        #expect(reopened.state == Asymmetric(a: 3))
        try reopened.close()
    }
}

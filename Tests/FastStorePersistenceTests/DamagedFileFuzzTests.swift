import FastStore
import FastStorePersistence
import FastStorePersistenceTestSupport
import FastStoreTestSupport
import Foundation
import GRDB
import Testing

/// Seeded damage of a state file and its `-wal`, and every column of every
/// table of a state file edited: opening never crashes; it opens to the
/// state after a prefix of the saved batches, or throws a
/// `PersistentStateError` and leaves the files and the folder's listing
/// byte for byte as they were (``DamageFixture/open(_:_:)``).
///
/// `FASTSTORE_SEED` sets the seed, `FASTSTORE_DAMAGE_FUZZ_RUNS` the number
/// of seeded byte damages (default 160; with the 54 column edits and the
/// fixed cases, over 200 in all).
@Suite struct DamagedFileFuzzTests {
    static var seed: UInt64 { ProcessInfo.processInfo.environment["FASTSTORE_SEED"].flatMap(UInt64.init) ?? 0xF022_DA3A }
    static var runs: Int { ProcessInfo.processInfo.environment["FASTSTORE_DAMAGE_FUZZ_RUNS"].flatMap(Int.init) ?? 160 }

    /// A column edit: the table, the row (a `WHERE`), the column, and what
    /// it is set to.
    struct ColumnEdit: CustomStringConvertible {
        var table: String
        var row: String
        var column: String
        var value: String
        var kind: String
        var description: String { "\(table).\(column) of the row where \(row) set to \(kind) (\(value))" }
    }

    /// Each column of each table, set to NULL, to a value of the wrong
    /// type, and to a wrong value of the right type; in the log, on its
    /// first and its last row; in the meta table, on both of its rows.
    static func columnEdits(firstLog: Int64, lastLog: Int64) -> [ColumnEdit] {
        var edits: [ColumnEdit] = []
        func add(_ table: String, _ row: String, _ column: String, wrongType: String, wrongValue: String) {
            edits.append(ColumnEdit(table: table, row: row, column: column, value: "NULL", kind: "NULL"))
            edits.append(ColumnEdit(table: table, row: row, column: column, value: wrongType, kind: "a wrong type"))
            edits.append(ColumnEdit(table: table, row: row, column: column, value: wrongValue, kind: "a wrong value"))
        }
        for key in ["format", "version"] {
            add("faststore_meta", "key = '\(key)'", "key", wrongType: "X'00FF'", wrongValue: "'\(key)x'")
            add("faststore_meta", "key = '\(key)'", "value", wrongType: "X'31'", wrongValue: key == "format" ? "'9'" : "'77'")
        }
        let snapshot = "id = 1"
        add("faststore_snapshot", snapshot, "id", wrongType: "'x'", wrongValue: "2")
        add("faststore_snapshot", snapshot, "sequence", wrongType: "'x'", wrongValue: "sequence + 3")
        add("faststore_snapshot", snapshot, "state", wrongType: "'x'", wrongValue: "X'7B7D'")
        add("faststore_snapshot", snapshot, "checksum", wrongType: "'x'", wrongValue: "checksum + 1")
        for sequence in [firstLog, lastLog] {
            let row = "sequence = \(sequence)"
            add("faststore_log", row, "sequence", wrongType: "'x'", wrongValue: "sequence + 100")
            add("faststore_log", row, "patch", wrongType: "'x'", wrongValue: "X'7B7D'")
            add("faststore_log", row, "checksum", wrongType: "'x'", wrongValue: "checksum + 1")
        }
        add("faststore_history", "id = 1", "id", wrongType: "'x'", wrongValue: "2")
        add("faststore_history", "id = 1", "sequence", wrongType: "'x'", wrongValue: "sequence + 1")
        add("faststore_history", "id = 1", "entries", wrongType: "'x'", wrongValue: "X'7B7D'")
        add("faststore_history", "id = 1", "checksum", wrongType: "'x'", wrongValue: "checksum + 1")
        return edits
    }

    @Test func everyDamageOpensToAPrefixOrIsRefusedLeavingTheFolderAsItWas() async throws {
        let folder = temporaryDirectory()
        let fixture = try await DamageFixture.make(in: folder)
        let cases = folder.appendingPathComponent("cases")
        var total = 0
        var refused = 0
        func run(_ files: [String: Data], _ description: String) throws {
            let caseFolder = try DamageFixture.write(files, under: cases, "case\(total)")
            if case .refused = try fixture.open(caseFolder, "case \(total), \(description)") { refused += 1 }
            total += 1
        }

        // Every column of every table.
        let (firstLog, lastLog): (Int64, Int64) = try {
            let probe = try DamageFixture.write(fixture.closed, under: folder, "probe")
            let queue = try DatabaseQueue(path: probe.appendingPathComponent("state.sqlite").path)
            defer { try? queue.close() }
            return try queue.read { db in
                (try Int64.fetchOne(db, sql: "SELECT min(sequence) FROM faststore_log") ?? 0,
                 try Int64.fetchOne(db, sql: "SELECT max(sequence) FROM faststore_log") ?? 0)
            }
        }()
        #expect(lastLog > firstLog, "the fixture's log holds \(firstLog)...\(lastLog)")
        var namedColumnDamage = 0
        for edit in Self.columnEdits(firstLog: firstLog, lastLog: lastLog) {
            let caseFolder = try DamageFixture.write(fixture.closed, under: cases, "case\(total)")
            let path = caseFolder.appendingPathComponent("state.sqlite").path
            try DamageFixture.edit(path, table: edit.table, "UPDATE \(edit.table) SET \(edit.column) = \(edit.value) WHERE \(edit.row)")
            if case .refused(let error) = try fixture.open(caseFolder, "case \(total), \(edit)") {
                refused += 1
                // Named: damage of the edited table, or (the meta table) a
                // format or version this version does not read.
                // NB: a snapshot's sequence that no longer precedes the
                // log is found at the log's first row: either may be wrong.
                let sequenceMismatch = edit.table == "faststore_snapshot" && edit.column == "sequence"
                switch error {
                case .damaged(_, let table, _, _) where table == edit.table || (sequenceMismatch && table == "faststore_log"):
                    namedColumnDamage += 1
                case .notAStateFile where edit.table == "faststore_meta":
                    namedColumnDamage += 1
                case .versionMismatch where edit.table == "faststore_meta":
                    namedColumnDamage += 1
                default:
                    Issue.record("case \(total), \(edit): refused as \(error), not as damage of \(edit.table)")
                }
            }
            total += 1
        }
        #expect(namedColumnDamage >= 40, "only \(namedColumnDamage) column edits were refused")

        // Cases a check from outside found: zeroed bytes in the middle, a
        // main file truncated to a few pages beside its WAL, an empty file.
        var zeroed = fixture.closed
        let closedMain = fixture.closed["state.sqlite"]!
        let start = min(6_928, closedMain.count - 1)
        zeroed["state.sqlite"]!.replaceSubrange(start ..< min(start + 2_141, closedMain.count), with: Data(count: min(2_141, closedMain.count - start)))
        try run(zeroed, "2,141 bytes zeroed at \(start)")
        for length in [4_096, 5_120, 6_144] {
            var truncated = fixture.crashed
            truncated["state.sqlite"] = truncated["state.sqlite"]!.prefix(length)
            try run(truncated, "the main file truncated to \(length) bytes beside its WAL")
        }
        try run(["state.sqlite": Data()], "an empty file")

        // Seeded truncation and overwrite of the main file, of the WAL, and
        // of both.
        var rng = SeededGenerator(seed: Self.seed)
        func damage(_ bytes: Data) -> (Data, String) {
            var damaged = bytes
            if rng.next() % 2 == 0 {
                let length = Int(rng.next() % UInt64(bytes.count))
                return (damaged.prefix(length), "truncated to \(length) of \(bytes.count) bytes")
            }
            let offset = Int(rng.next() % UInt64(bytes.count))
            // NB: mostly a few bytes, sometimes a page or two.
            let length = min(rng.next() % 4 == 0 ? Int(rng.next() % 8_192) + 1 : Int(rng.next() % 16) + 1, bytes.count - offset)
            let zero = rng.next() % 3 == 0
            for i in offset ..< offset + length { damaged[i] = zero ? 0 : UInt8(truncatingIfNeeded: rng.next()) }
            return (damaged, "\(length) bytes \(zero ? "zeroed" : "overwritten") at \(offset)")
        }
        for _ in 0 ..< Self.runs {
            var files: [String: Data]
            let description: String
            switch rng.next() % 4 {
            case 0:
                files = fixture.closed
                let (main, what) = damage(files["state.sqlite"]!)
                files["state.sqlite"] = main
                description = "closed file: main \(what)"
            case 1:
                files = fixture.crashed
                let (main, what) = damage(files["state.sqlite"]!)
                files["state.sqlite"] = main
                description = "crashed file: main \(what)"
            case 2:
                files = fixture.crashed
                let (wal, what) = damage(files["state.sqlite-wal"]!)
                files["state.sqlite-wal"] = wal
                description = "crashed file: WAL \(what)"
            default:
                files = fixture.crashed
                let (main, whatMain) = damage(files["state.sqlite"]!)
                let (wal, whatWAL) = damage(files["state.sqlite-wal"]!)
                files["state.sqlite"] = main
                files["state.sqlite-wal"] = wal
                description = "crashed file: main \(whatMain), WAL \(whatWAL)"
            }
            try run(files, "\(description) (FASTSTORE_SEED=\(Self.seed))")
        }
        #expect(total >= 200)
        #expect(refused > total / 4, "only \(refused) of \(total) damaged files were refused: the damage missed")
        try? FileManager.default.removeItem(at: folder)
    }
}

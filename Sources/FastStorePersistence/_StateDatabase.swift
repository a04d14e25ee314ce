import CFastStorePersistence
import Foundation
import GRDB

/// The SQLite file of a ``PersistentState``: every statement it runs, and
/// the schema, in one place.
///
///     faststore_meta(key TEXT PRIMARY KEY, value TEXT)                -- format, version
///     faststore_snapshot(id = 1, sequence, state BLOB, checksum)      -- the state after batch `sequence`
///     faststore_log(sequence PRIMARY KEY, patch BLOB, checksum)       -- one patch per saved write, in order
///     faststore_history(id = 1, sequence, entries BLOB, checksum)      -- a history's patches, saved with the state after batch `sequence`
///
/// Each blob is stored with its checksum (``_Checksum``), checked on
/// reading: SQLite checks no page contents, so a byte changed inside a
/// blob would otherwise read as another state.
///
/// The state in the file is the snapshot with every logged patch of a
/// greater sequence applied in order. The history is valid only while the
/// state is the one after its `sequence` (a later write, or a crash after
/// one, leaves it behind; a migration deletes it). Files written before the
/// history table existed get it when they are accepted. Each write is one transaction, in WAL
/// mode with `synchronous = FULL`: committed means on disk, and a crash
/// leaves the file as after its last committed transaction.
///
/// Opening reads before it writes anything: a file that is not a database,
/// is damaged, or holds something else is refused and left as it was.
struct _StateDatabase {
    static let format = "1"
    /// Sequence numbers a file may hold: a save counts on from them by one
    /// per batch, and a larger one (only damage makes it) would overflow.
    static let sequenceLimit: Int64 = 1 << 62
    // NB: created with the others in a new file, and on its own in a file
    // written before it existed (format 1 without it reads the same).
    private static let historyTable = "faststore_history (id INTEGER PRIMARY KEY CHECK (id = 1), sequence INTEGER NOT NULL, entries BLOB NOT NULL, checksum INTEGER NOT NULL)"

    let path: String
    private let queue: DatabaseQueue

    /// What an existing file holds, read at open.
    struct Contents {
        var snapshotSequence: Int64
        var snapshot: Data
        var version: Int
        /// The patches after the snapshot, in order, with their rows in
        /// `faststore_log` (SQLite's rowid).
        var log: [(sequence: Int64, patch: Data, row: Int64)]
        /// The saved history (a `_SavedHistory` in JSON), and the sequence
        /// of the state it was saved with.
        var history: (sequence: Int64, entries: Data)?
    }

    /// Opens the database at `path`, reading nothing yet.
    ///
    /// - Parameter reportedPath: The path errors name (the one the app gave).
    init(path: String, reportedPath: String) throws(PersistentStateError) {
        self.path = reportedPath
        var configuration = Configuration()
        configuration.label = "FastStorePersistence"
        // NB: no journal mode here: setting WAL writes the file's header,
        // which must wait until the file was read and accepted. And no
        // checkpoint on close until then, set before GRDB reads the schema
        // (its check that the file is a database): a connection GRDB closes
        // on a malformed schema would otherwise checkpoint the WAL into the
        // file it refused, and remove the WAL.
        configuration.prepareDatabase { db in try Self.setCheckpointOnClose(false, db) }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .unreadableFile(path: reportedPath, reason: Self.reason(error))
        }
    }

    /// Reads the file's contents. Writes nothing: until
    /// ``prepare(creatingWith:version:)`` accepts the file, closing the
    /// connection leaves a WAL (what a crash leaves) where it is, not
    /// checkpointed into the file.
    ///
    /// Every column is read as a `DatabaseValue` and its type checked: a
    /// value no save writes (NULL, another type, a checksum that does not
    /// match, a batch out of order) is ``PersistentStateError/damaged(path:table:row:reason:)``
    /// naming its table and row, never a trap.
    func read() throws(PersistentStateError) -> Contents {
        do {
            return try queue.read { db -> Contents in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if tables.isEmpty {
                    throw _Refusal.notAStateFile("it is a SQLite database without any table (a state file holds FastStore's)")
                }
                guard Set(tables).isSuperset(of: ["faststore_meta", "faststore_snapshot", "faststore_log"]) else {
                    throw _Refusal.notAStateFile("it holds other tables (\(tables.sorted().joined(separator: ", "))), not FastStore's")
                }
                var meta: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT rowid, key, value FROM faststore_meta") {
                    let place = _Place(table: "faststore_meta", row: row)
                    let key = try place.text(row, 1, "key")
                    let value = try place.text(row, 2, "value of '\(key)'")
                    guard meta.updateValue(value, forKey: key) == nil else { throw place.damage("the key '\(key)' is there twice") }
                }
                guard meta["format"] == Self.format else {
                    throw _Refusal.notAStateFile("its format is \(meta["format"].map { "'\($0)'" } ?? "missing"), this version reads '\(Self.format)'")
                }
                guard let versionText = meta["version"] else {
                    throw _Refusal.notAStateFile("it has no state version")
                }
                guard let version = Int(versionText) else {
                    let row = try Int64.fetchOne(db, sql: "SELECT rowid FROM faststore_meta WHERE key = 'version'")
                    throw _Refusal.damaged(table: "faststore_meta", row: row, "the state version is '\(versionText)', not a number")
                }
                let snapshots = try Row.fetchAll(db, sql: "SELECT rowid, id, sequence, state, checksum FROM faststore_snapshot")
                guard let snapshot = snapshots.first else {
                    throw _Refusal.damaged(table: "faststore_snapshot", row: nil, "it holds no snapshot")
                }
                let snapshotPlace = _Place(table: "faststore_snapshot", row: snapshot)
                guard snapshots.count == 1 else { throw snapshotPlace.damage("it holds \(snapshots.count) snapshots, not one") }
                guard try snapshotPlace.integer(snapshot, 1, "id") == 1 else { throw snapshotPlace.damage("the snapshot's id is not 1") }
                let sequence = try snapshotPlace.integer(snapshot, 2, "sequence")
                // NB: no save reaches such a number, and counting on from it
                // would overflow.
                guard (0 ..< _StateDatabase.sequenceLimit).contains(sequence) else {
                    throw snapshotPlace.damage("the snapshot's sequence \(sequence) is out of range")
                }
                let state = try snapshotPlace.blob(snapshot, 3, "state")
                guard _Checksum.of(state) == (try snapshotPlace.integer(snapshot, 4, "checksum")) else {
                    throw snapshotPlace.damage("the snapshot's checksum does not match its contents")
                }
                var log: [(sequence: Int64, patch: Data, row: Int64)] = []
                // NB: the log always holds batches snapshot + 1, + 2, ...: a
                // gap or an older batch is a damaged sequence number (no
                // checksum covers them).
                var expected = sequence + 1
                for row in try Row.fetchAll(db, sql: "SELECT rowid, sequence, patch, checksum FROM faststore_log ORDER BY sequence") {
                    let place = _Place(table: "faststore_log", row: row)
                    let entry = try place.integer(row, 1, "sequence")
                    guard entry == expected else {
                        throw place.damage("the log holds batch \(entry) where batch \(expected) belongs (the snapshot is after batch \(sequence))")
                    }
                    expected += 1
                    let patch = try place.blob(row, 2, "patch")
                    guard _Checksum.of(patch) == (try place.integer(row, 3, "checksum")) else {
                        throw place.damage("the checksum of batch \(entry)'s patch does not match its contents")
                    }
                    log.append((entry, patch, place.row ?? entry))
                }
                var history: (sequence: Int64, entries: Data)?
                if tables.contains("faststore_history") {
                    let rows = try Row.fetchAll(db, sql: "SELECT rowid, id, sequence, entries, checksum FROM faststore_history")
                    if let row = rows.first {
                        let place = _Place(table: "faststore_history", row: row)
                        guard rows.count == 1 else { throw place.damage("it holds \(rows.count) histories, not one") }
                        guard try place.integer(row, 1, "id") == 1 else { throw place.damage("the history's id is not 1") }
                        let saved = try place.integer(row, 2, "sequence")
                        guard (0 ..< _StateDatabase.sequenceLimit).contains(saved) else {
                            throw place.damage("the saved history's sequence \(saved) is out of range")
                        }
                        let entries = try place.blob(row, 3, "entries")
                        guard _Checksum.of(entries) == (try place.integer(row, 4, "checksum")) else {
                            throw place.damage("the checksum of the saved history does not match its contents")
                        }
                        history = (saved, entries)
                    }
                }
                return Contents(snapshotSequence: sequence, snapshot: state, version: version, log: log, history: history)
            }
        } catch let refusal as _Refusal {
            switch refusal {
            case .notAStateFile(let reason): throw .notAStateFile(path: path, reason: reason)
            case .damaged(let table, let row, let reason): throw .damaged(path: path, table: table, row: row, reason: reason)
            }
        } catch {
            throw .unreadableFile(path: path, reason: Self.reason(error))
        }
    }

    /// Switches the accepted file to WAL with full syncs, creates the
    /// schema and the first snapshot when the file was new, and the history
    /// table when the file predates it.
    func prepare(creatingWith snapshot: Data?, version: Int) throws(PersistentStateError) {
        do {
            try queue.writeWithoutTransaction { db in try Self.setCheckpointOnClose(true, db) }
            // NB: outside a transaction, as SQLite requires for these.
            _ = try queue.writeWithoutTransaction { db in
                try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            }
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            guard let snapshot else {
                try queue.write { db in try db.execute(sql: "CREATE TABLE IF NOT EXISTS \(Self.historyTable)") }
                return
            }
            try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE faststore_meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE faststore_snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), sequence INTEGER NOT NULL, state BLOB NOT NULL, checksum INTEGER NOT NULL);
                    CREATE TABLE faststore_log (sequence INTEGER PRIMARY KEY NOT NULL, patch BLOB NOT NULL, checksum INTEGER NOT NULL);
                    CREATE TABLE \(Self.historyTable);
                    """)
                try db.execute(sql: "INSERT INTO faststore_meta (key, value) VALUES ('format', ?), ('version', ?)",
                               arguments: [Self.format, String(version)])
                try db.execute(sql: "INSERT INTO faststore_snapshot (id, sequence, state, checksum) VALUES (1, 0, ?, ?)",
                               arguments: [snapshot, _Checksum.of(snapshot)])
            }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Appends one patch, committed and synced when this returns.
    func append(sequence: Int64, patch: Data) throws(PersistentStateError) {
        do {
            try queue.write { db in
                try db.execute(sql: "INSERT INTO faststore_log (sequence, patch, checksum) VALUES (?, ?, ?)",
                               arguments: [sequence, patch, _Checksum.of(patch)])
            }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Rewrites a migrated file in one transaction: the snapshot (the state
    /// after batch `sequence`, converted), an empty log, the new version.
    func replace(sequence: Int64, snapshot: Data, version: Int) throws(PersistentStateError) {
        do {
            try queue.write { db in
                try db.execute(sql: "UPDATE faststore_snapshot SET sequence = ?, state = ?, checksum = ? WHERE id = 1",
                               arguments: [sequence, snapshot, _Checksum.of(snapshot)])
                try db.execute(sql: "DELETE FROM faststore_log")
                // NB: the history's patches are of the old type.
                try db.execute(sql: "DELETE FROM faststore_history")
                try db.execute(sql: "UPDATE faststore_meta SET value = ? WHERE key = 'version'", arguments: [String(version)])
            }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Replaces the saved history by `entries`, saved with the state after
    /// batch `sequence`, in one transaction.
    func saveHistory(sequence: Int64, entries: Data) throws(PersistentStateError) {
        do {
            try queue.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO faststore_history (id, sequence, entries, checksum) VALUES (1, ?, ?, ?)",
                               arguments: [sequence, entries, _Checksum.of(entries)])
            }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Deletes the saved history, committed and synced when this returns.
    func deleteHistory() throws(PersistentStateError) {
        do {
            try queue.write { db in try db.execute(sql: "DELETE FROM faststore_history") }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Replaces the snapshot by the state after batch `sequence` and drops
    /// the log up to it, in one transaction.
    func compact(sequence: Int64, snapshot: Data) throws(PersistentStateError) {
        do {
            try queue.write { db in
                try db.execute(sql: "UPDATE faststore_snapshot SET sequence = ?, state = ?, checksum = ? WHERE id = 1",
                               arguments: [sequence, snapshot, _Checksum.of(snapshot)])
                try db.execute(sql: "DELETE FROM faststore_log WHERE sequence <= ?", arguments: [sequence])
            }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Whether closing the connection checkpoints the WAL into the file.
    private static func setCheckpointOnClose(_ enabled: Bool, _ db: Database) throws {
        let code = cfaststore_set_checkpoint_on_close(UnsafeMutableRawPointer(db.sqliteConnection), enabled ? 1 : 0)
        // NB: 0 is SQLITE_OK.
        if code != 0 { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "sqlite3_db_config(NO_CKPT_ON_CLOSE) failed") }
    }

    /// Closes the connection: SQLite checkpoints the WAL into the file and
    /// removes it (unless ``read()`` was the last call: a refused file is
    /// left as it was). Nothing may use the database afterwards.
    ///
    /// - Throws: GRDB's error when the connection could not close (a
    ///   statement still running): SQLite then closes it when the queue is
    ///   released, and the WAL is checkpointed at the next open.
    func close() throws(PersistentStateError) {
        do {
            try queue.close()
        } catch {
            throw .saveFailed(path: path, reason: "closing the file failed: \(Self.reason(error))")
        }
    }

    /// Limits the file to `pages` pages of the database (SQLite's
    /// `max_page_count`), so that a write past it fails as on a full disk:
    /// for tests. `nil` lifts the limit.
    func limitPages(_ pages: Int?) throws {
        try queue.writeWithoutTransaction { db in
            _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(pages ?? 1_073_741_823)")
        }
    }

    /// The number of pages the database holds now (for tests).
    func pageCount() throws -> Int {
        try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 }
    }

    private enum _Refusal: Error {
        case notAStateFile(String)
        case damaged(table: String, row: Int64?, String)
    }

    /// A row read at open: its table and rowid, and its columns read as
    /// `DatabaseValue`s with their types checked (GRDB's typed subscript
    /// traps on NULL or another type).
    private struct _Place {
        let table: String
        let row: Int64?

        init(table: String, row: Row) {
            self.table = table
            if case .int64(let rowid) = (row[0] as DatabaseValue).storage { self.row = rowid } else { self.row = nil }
        }

        func damage(_ reason: String) -> _Refusal { .damaged(table: table, row: row, reason) }

        func integer(_ row: Row, _ index: Int, _ column: String) throws -> Int64 {
            let value: DatabaseValue = row[index]
            if case .int64(let integer) = value.storage { return integer }
            throw damage("its \(column) is \(Self.describe(value)), not an integer")
        }

        func blob(_ row: Row, _ index: Int, _ column: String) throws -> Data {
            let value: DatabaseValue = row[index]
            if case .blob(let data) = value.storage { return data }
            throw damage("its \(column) is \(Self.describe(value)), not a blob")
        }

        func text(_ row: Row, _ index: Int, _ column: String) throws -> String {
            let value: DatabaseValue = row[index]
            if case .string(let text) = value.storage { return text }
            throw damage("its \(column) is \(Self.describe(value)), not a text")
        }

        static func describe(_ value: DatabaseValue) -> String {
            switch value.storage {
            case .null: return "NULL"
            case .int64(let integer): return "the integer \(integer)"
            case .double(let real): return "the real number \(real)"
            case .string(let text): return "the text '\(text.prefix(40))'"
            case .blob(let data): return "a blob of \(data.count) bytes"
            }
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }
}

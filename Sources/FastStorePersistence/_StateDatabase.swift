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
        /// The patches after the snapshot, in order.
        var log: [(sequence: Int64, patch: Data)]
        /// The saved history (a `_SavedHistory` in JSON), and the sequence
        /// of the state it was saved with.
        var history: (sequence: Int64, entries: Data)?
    }

    /// Opens (or creates) the database at `path`, reading nothing yet.
    init(path: String) throws(PersistentStateError) {
        self.path = path
        var configuration = Configuration()
        configuration.label = "FastStorePersistence"
        // NB: no journal mode here: setting WAL writes the file's header,
        // which must wait until the file was read and accepted.
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .unreadableFile(path: path, reason: Self.reason(error))
        }
    }

    /// Reads the file: `nil` when it holds no table at all (a new or empty
    /// file), else its contents. Writes nothing: until ``prepare(creatingWith:version:)``
    /// accepts the file, closing the connection leaves a WAL (what a crash
    /// leaves) where it is, not checkpointed into the file.
    func read() throws(PersistentStateError) -> Contents? {
        do {
            try setCheckpointOnClose(false)
            return try queue.read { db -> Contents? in
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
                if tables.isEmpty { return nil }
                guard Set(tables).isSuperset(of: ["faststore_meta", "faststore_snapshot", "faststore_log"]) else {
                    throw _Refusal.notAStateFile("it holds other tables (\(tables.sorted().joined(separator: ", "))), not FastStore's")
                }
                let meta = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM faststore_meta").map {
                    (($0["key"] as String), ($0["value"] as String))
                })
                guard meta["format"] == Self.format else {
                    throw _Refusal.notAStateFile("its format is \(meta["format"].map { "'\($0)'" } ?? "missing"), this version reads '\(Self.format)'")
                }
                guard let versionText = meta["version"], let version = Int(versionText) else {
                    throw _Refusal.notAStateFile("it has no state version")
                }
                guard let snapshot = try Row.fetchOne(db, sql: "SELECT sequence, state, checksum FROM faststore_snapshot WHERE id = 1") else {
                    throw _Refusal.notAStateFile("it has no snapshot")
                }
                let sequence: Int64 = snapshot["sequence"]
                let state: Data = snapshot["state"]
                guard _Checksum.of(state) == snapshot["checksum"] else {
                    throw _Refusal.damaged("the snapshot's checksum does not match its contents")
                }
                var log: [(sequence: Int64, patch: Data)] = []
                // NB: the log always holds batches snapshot + 1, + 2, ...: a
                // gap or an older batch is a damaged sequence number (no
                // checksum covers them).
                var expected = sequence + 1
                for row in try Row.fetchAll(db, sql: "SELECT sequence, patch, checksum FROM faststore_log ORDER BY sequence") {
                    let patch: Data = row["patch"]
                    let entry: Int64 = row["sequence"]
                    guard entry == expected else {
                        throw _Refusal.damaged("the log holds batch \(entry) where batch \(expected) belongs (the snapshot is after batch \(sequence))")
                    }
                    expected += 1
                    guard _Checksum.of(patch) == row["checksum"] else {
                        throw _Refusal.damaged("the checksum of batch \(entry)'s patch does not match its contents")
                    }
                    log.append((entry, patch))
                }
                var history: (sequence: Int64, entries: Data)?
                if tables.contains("faststore_history"),
                   let row = try Row.fetchOne(db, sql: "SELECT sequence, entries, checksum FROM faststore_history WHERE id = 1") {
                    let entries: Data = row["entries"]
                    guard _Checksum.of(entries) == row["checksum"] else {
                        throw _Refusal.damaged("the checksum of the saved history does not match its contents")
                    }
                    history = (row["sequence"], entries)
                }
                return Contents(snapshotSequence: sequence, snapshot: state, version: version, log: log, history: history)
            }
        } catch let refusal as _Refusal {
            switch refusal {
            case .notAStateFile(let reason): throw .notAStateFile(path: path, reason: reason)
            case .damaged(let reason): throw .unreadableFile(path: path, reason: reason)
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
            try setCheckpointOnClose(true)
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
    private func setCheckpointOnClose(_ enabled: Bool) throws {
        try queue.writeWithoutTransaction { db in
            let code = cfaststore_set_checkpoint_on_close(UnsafeMutableRawPointer(db.sqliteConnection), enabled ? 1 : 0)
            // NB: 0 is SQLITE_OK.
            if code != 0 { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "sqlite3_db_config(NO_CKPT_ON_CLOSE) failed") }
        }
    }

    /// Closes the connection: SQLite checkpoints the WAL into the file and
    /// removes it. Nothing may use the database afterwards.
    func close() {
        try? queue.close()
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

    private enum _Refusal: Error { case notAStateFile(String), damaged(String) }

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }
}

import CFastStorePersistence
import Foundation
import GRDB

/// The SQLite file of a ``PersistentState``: every statement it writes
/// with, and the schema, in one place (the read at open is
/// ``_StateInspection``'s, read-only).
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
/// Opening reads before it writes anything, and reads read-only
/// (``_StateInspection``): a file that is not a database, is damaged, or
/// holds something else is refused and left as it was. This type's
/// read-write connection is opened on a new file, or an existing one once
/// its inspection accepted it.
struct _StateDatabase {
    /// The format this version writes: `2`, whose blobs may be binary
    /// (``_StateCoding``). Format `1` (every blob JSON) is read, and
    /// upgraded when opened (``upgradeFormat(sequence:snapshot:)``).
    static let format = "2"
    /// The formats this version reads.
    static let readableFormats: Set<String> = ["1", "2"]
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
        /// The file's format (one of ``readableFormats``).
        var format: String
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

    /// Opens the database `owner` owns read-write: a new file, or one a
    /// ``_StateInspection`` accepted (a read-write connection's first read
    /// rolls back a hot journal, writing the file).
    ///
    /// - Parameters:
    ///   - reportedPath: The path errors name (the one the app gave).
    ///   - lockingExclusively: Whether SQLite keeps its locks on the file
    ///     until the connection closes (`PRAGMA locking_mode = EXCLUSIVE`),
    ///     for the connection that writes a new file under its hidden name:
    ///     SQLite ends each transaction on a file in rollback-journal mode,
    ///     as a new file is until it switches to WAL, by unlocking the whole
    ///     file, which releases `owner`'s lock too, and another process's
    ///     clean-up of stale creations would take the file then.
    /// - Throws: ``PersistentStateError/fileReplaced(path:)`` when SQLite
    ///   opened another file than the one `owner` locked (one renamed over
    ///   the path meanwhile), before reading anything.
    init(owner: _FileLock, reportedPath: String, lockingExclusively: Bool = false) throws(PersistentStateError) {
        self.path = reportedPath
        var configuration = Configuration()
        configuration.label = "FastStorePersistence"
        // NB: no journal mode here: setting WAL writes the file's header,
        // which must wait until the file was prepared. And no checkpoint on
        // close until ``prepare(creatingWith:version:)`` succeeded, set
        // before GRDB reads the schema (its check that the file is a
        // database): an open that fails before would otherwise checkpoint
        // the WAL into the file it gives up, and remove the WAL. The file
        // SQLite opened is checked before that read too.
        configuration.prepareDatabase { db in
            try owner.checkOpened(by: db.sqliteConnection, reportedPath: reportedPath)
            try Self.setCheckpointOnClose(false, db)
            if lockingExclusively { _ = try String.fetchOne(db, sql: "PRAGMA locking_mode = EXCLUSIVE") }
        }
        queue = try Self.openQueue(owner, configuration, reportedPath: reportedPath, reason: Self.reason)
    }

    /// Switches the accepted file to WAL with full syncs, creates the
    /// schema and the first snapshot when the file was new, and the history
    /// table when the file predates it; then, only once all that succeeded,
    /// lets closing the connection checkpoint the WAL into the file.
    func prepare(creatingWith snapshot: Data?, version: Int) throws(PersistentStateError) {
        do {
            try _prepare(creatingWith: snapshot, version: version)
            // NB: last: a prepare that fails leaves it off, so that the open
            // giving up closes without writing the WAL into the file.
            try queue.writeWithoutTransaction { db in try Self.setCheckpointOnClose(true, db) }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    private func _prepare(creatingWith snapshot: Data?, version: Int) throws {
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
    /// after batch `sequence`, converted), an empty log, the new version,
    /// this version's format.
    func replace(sequence: Int64, snapshot: Data, version: Int) throws(PersistentStateError) {
        do {
            try queue.write { db in
                try db.execute(sql: "UPDATE faststore_snapshot SET sequence = ?, state = ?, checksum = ? WHERE id = 1",
                               arguments: [sequence, snapshot, _Checksum.of(snapshot)])
                try db.execute(sql: "DELETE FROM faststore_log")
                // NB: the history's patches are of the old type.
                try db.execute(sql: "DELETE FROM faststore_history")
                try db.execute(sql: "UPDATE faststore_meta SET value = ? WHERE key = 'version'", arguments: [String(version)])
                try db.execute(sql: "UPDATE faststore_meta SET value = ? WHERE key = 'format'", arguments: [Self.format])
            }
        } catch {
            throw .saveFailed(path: path, reason: Self.reason(error))
        }
    }

    /// Upgrades a file of format `1` to this version's, in one transaction:
    /// the format, and (when given) the snapshot rewritten, the state after
    /// batch `sequence` (the log's last), with an empty log. The saved
    /// history stays: it goes with the same state, and is JSON in both.
    func upgradeFormat(sequence: Int64, snapshot: Data?) throws(PersistentStateError) {
        do {
            try queue.write { db in
                if let snapshot {
                    try db.execute(sql: "UPDATE faststore_snapshot SET sequence = ?, state = ?, checksum = ? WHERE id = 1",
                                   arguments: [sequence, snapshot, _Checksum.of(snapshot)])
                    try db.execute(sql: "DELETE FROM faststore_log")
                }
                try db.execute(sql: "UPDATE faststore_meta SET value = ? WHERE key = 'format'", arguments: [Self.format])
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
    static func setCheckpointOnClose(_ enabled: Bool, _ db: Database) throws {
        let code = cfaststore_set_checkpoint_on_close(UnsafeMutableRawPointer(db.sqliteConnection), enabled ? 1 : 0)
        // NB: 0 is SQLITE_OK.
        if code != 0 { throw DatabaseError(resultCode: ResultCode(rawValue: code), message: "sqlite3_db_config(NO_CKPT_ON_CLOSE) failed") }
    }

    /// Closes the connection: SQLite checkpoints the WAL into the file and
    /// removes it (once ``prepare(creatingWith:version:)`` succeeded; an
    /// open that gives up calls ``abandon()``). Nothing may use the database
    /// afterwards.
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

    /// Closes the connection of an open that gives up after the file was
    /// accepted (a prepare or a migration's write that failed), without
    /// checkpointing: the WAL is left where it was, not written into the
    /// file. Nothing may use the database afterwards.
    ///
    /// NB: what the failed open committed stays in the WAL: a WAL it made
    /// is removed with it (`_FileLock.refused(sidecarsBefore:)`), one that
    /// was there keeps it (the history table a file predating it gets).
    func abandon() {
        // NB: neither can fail but for a statement still running, which
        // nothing left; SQLite would close the connection when the queue is
        // released, still without checkpointing.
        try? queue.writeWithoutTransaction { db in try Self.setCheckpointOnClose(false, db) }
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

    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError { return error.message ?? "\(error.resultCode)" }
        return "\(error)"
    }

    /// A connection to the file `owner` locked, with `configuration`: a
    /// refusal its `prepareDatabase` threw as it is, any other failure as
    /// `unreadableFile` with `reason`'s words.
    ///
    /// - Complexity: SQLite's open, plus `configuration`'s preparation.
    static func openQueue(
        _ owner: _FileLock, _ configuration: Configuration, reportedPath: String, reason: (any Error) -> String
    ) throws(PersistentStateError) -> DatabaseQueue {
        owner.willOpenConnection()
        do {
            return try DatabaseQueue(path: owner.path, configuration: configuration)
        } catch let error as PersistentStateError {
            throw error
        } catch {
            throw .unreadableFile(path: reportedPath, reason: reason(error))
        }
    }
}

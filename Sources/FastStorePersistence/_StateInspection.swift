import Foundation
import GRDB

/// An existing file opened read-only, to decide whether it is a state file
/// this version accepts: everything ``PersistentState`` reads before it
/// writes anything.
///
/// A read-only connection leaves the file as it is, whatever the file
/// holds. SQLite does not roll back a hot journal through it (another
/// program's transaction left unfinished beside the file: the open fails
/// with `SQLITE_READONLY_ROLLBACK` and the file is refused, journal and
/// all), where a read-write connection's first read, GRDB's check that the
/// file is a database, would have rolled it back (the file's pages
/// rewritten, the journal removed) before anything could refuse the file.
/// Nor does it checkpoint a WAL. In WAL mode it creates the `-wal` and
/// `-shm` it reads through when they are missing, as any connection does:
/// a refused open removes those (`_FileLock.refused(sidecarsBefore:)`).
///
/// Once the file is accepted, the caller opens the ``_StateDatabase`` that
/// writes it, then closes this connection.
struct _StateInspection {
    /// The path errors name (the one the app gave).
    let path: String
    private let queue: DatabaseQueue

    /// Opens the existing file `owner` owns read-only.
    ///
    /// - Parameter reportedPath: The path errors name.
    /// - Throws: ``PersistentStateError/fileReplaced(path:)`` when SQLite
    ///   opened another file than the one `owner` locked (one renamed over
    ///   the path meanwhile), before reading anything;
    ///   ``PersistentStateError/unreadableFile(path:reason:)`` when SQLite
    ///   cannot read it: not a database, damaged, or a hot journal beside it.
    init(owner: _FileLock, reportedPath: String) throws(PersistentStateError) {
        self.path = reportedPath
        var configuration = Configuration()
        configuration.label = "FastStorePersistence.inspection"
        configuration.readonly = true
        // NB: a read-only connection does not checkpoint when it closes;
        // turned off all the same, before GRDB's first read, so that no
        // version of SQLite writes a WAL into a file this open refuses.
        // The file SQLite opened is checked before that read too.
        configuration.prepareDatabase { db in
            try owner.checkOpened(by: db.sqliteConnection, reportedPath: reportedPath)
            try _StateDatabase.setCheckpointOnClose(false, db)
        }
        queue = try _StateDatabase.openQueue(owner, configuration, reportedPath: reportedPath, reason: Self.reason)
    }

    /// Reads the file's contents, through the read-only connection: changes
    /// nothing in the file (see the type's notes).
    ///
    /// Every column is read as a `DatabaseValue` and its type checked: a
    /// value no save writes (NULL, another type, a checksum that does not
    /// match, a batch out of order) is ``PersistentStateError/damaged(path:table:row:reason:)``
    /// naming its table and row, never a trap.
    ///
    /// - Complexity: O(the file's rows).
    func read() throws(PersistentStateError) -> _StateDatabase.Contents {
        do {
            return try queue.read { db -> _StateDatabase.Contents in
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
                guard let format = meta["format"], _StateDatabase.readableFormats.contains(format) else {
                    let readable = _StateDatabase.readableFormats.sorted().map { "'\($0)'" }.joined(separator: " and ")
                    throw _Refusal.notAStateFile("its format is \(meta["format"].map { "'\($0)'" } ?? "missing"), this version reads \(readable)")
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
                return _StateDatabase.Contents(format: format, snapshotSequence: sequence, snapshot: state, version: version, log: log, history: history)
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

    /// Closes the read-only connection. Nothing may use it afterwards.
    ///
    /// NB: closing a descriptor of the file drops this process's POSIX
    /// locks on it (`_FileLock`): the owner renews its lock afterwards.
    /// SQLite's own locks are safe: it keeps the descriptor open while
    /// another connection of the process holds a lock on the file.
    func close() {
        // NB: it cannot fail: no statement of this connection is left
        // running (`read()` finished them); SQLite would close it when the
        // queue is released anyway.
        try? queue.close()
    }

    /// SQLite's message for `error`, or what a hot journal means.
    static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError, error.extendedResultCode == .SQLITE_READONLY_ROLLBACK {
            return "a hot journal is beside it (its -journal holds a transaction another program left unfinished), which SQLite would roll back, writing the file; open it once with that program, or the sqlite3 tool, to finish the rollback"
        }
        return _StateDatabase.reason(error)
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
}

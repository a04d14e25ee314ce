import Foundation

// Opening an existing state file: read-only until it is accepted.

extension PersistentState {
    /// What opening an existing state file gave.
    struct _Opened {
        var database: _StateDatabase
        /// The state the file held, migrated when it was of another version.
        var loaded: State
        /// The last batch the file holds.
        var sequence: Int64
        /// The patches in the file's log.
        var logged: Int
        /// The history saved with the state the file opened to (JSON).
        var restorable: Data?
    }

    /// Opens the existing file `owner` owns: reads it through a read-only
    /// connection (``_StateInspection``) and decides, and only once it is
    /// accepted opens it read-write, prepares it, and writes the migrated
    /// state when a migration from its version converted it.
    ///
    /// Whatever refuses the file (SQLite cannot read it without writing it,
    /// it is no state file, it is damaged, its state does not decode, its
    /// version has no migration, a migration fails) refuses it before any
    /// read-write connection exists. A failure after (a prepare or a
    /// migration's write that failed) closes that connection without
    /// checkpointing (``_StateDatabase/abandon()``). Either way, the `-wal`
    /// and `-shm` this open made are removed.
    ///
    /// - Complexity: O(the snapshot's size + the log's patches), plus, for
    ///   a migrated file, the conversion and a new snapshot written.
    static func _openExisting(
        _ owner: _FileLock, path: String, options: PersistenceOptions, migrations: [Migration]
    ) throws(PersistentStateError) -> _Opened {
        // NB: SQLite creates a `-wal` and `-shm` to read a file in WAL
        // mode, read-only or not: a refused open removes those it created.
        let before = owner.sidecars()
        let inspection: _StateInspection
        do {
            inspection = try _StateInspection(owner: owner, reportedPath: path)
        } catch {
            Self._refuse(owner, error, sidecarsBefore: before)
            throw error
        }
        var inspecting = true
        var opened: _StateDatabase?
        do throws(PersistentStateError) {
            let contents = try inspection.read()
            let last = contents.log.last?.sequence ?? contents.snapshotSequence
            let loaded: State
            var logged = 0
            var restorable: Data?
            var migrated: Data?
            let upgrading = contents.format != _StateDatabase.format
            var upgradedSnapshot: Data?
            if contents.version == options.version {
                loaded = try _replay(State.self, contents, path: path)
                logged = contents.log.count
                if let history = contents.history, history.sequence == last { restorable = history.entries }
                if upgrading {
                    // NB: an older format's JSON snapshot is rewritten in this
                    // version's; a state that does not encode keeps it (the
                    // format is upgraded all the same: the log's next
                    // patches are binary).
                    upgradedSnapshot = try? _StateCoding.encode(loaded)
                    if upgradedSnapshot != nil { logged = 0 }
                }
            } else if let migration = migrations.first(where: { $0.version == contents.version }) {
                // NB: everything in memory first; the file is written only
                // by the one transaction that replaces it.
                loaded = try migration.load(contents, path)
                do {
                    migrated = try _StateCoding.encode(loaded)
                } catch {
                    throw .migrationFailed(path: path, from: contents.version, reason: "the converted state does not encode: \(error)")
                }
            } else {
                throw .versionMismatch(path: path, saved: contents.version, expected: options.version)
            }
            // Accepted: from here on the file may be written.
            let database = try _StateDatabase(owner: owner, reportedPath: path)
            opened = database
            // NB: the read-only connection closes once the read-write one is
            // open (SQLite then keeps its descriptor open while that one
            // holds its lock on a WAL file); closing a descriptor of the
            // file may drop this process's lock between processes all the
            // same: it is taken again.
            inspection.close()
            inspecting = false
            try owner.renew()
            try database.prepare(creatingWith: nil, version: options.version)
            // NB: SQLite ends each transaction on a file in rollback-journal
            // mode by unlocking the whole file, which releases this
            // process's lock too (not on one in WAL mode, whose lock it
            // keeps until it closes): a file another tool switched to that
            // mode was just switched back to WAL by `prepare`. Taken again.
            try owner.renew()
            if let migrated {
                try database.replace(sequence: last, snapshot: migrated, version: options.version)
            } else if upgrading {
                try database.upgradeFormat(sequence: last, snapshot: upgradedSnapshot)
            }
            return _Opened(database: database, loaded: loaded, sequence: last, logged: logged, restorable: restorable)
        } catch {
            opened?.abandon()
            if inspecting { inspection.close() }
            Self._refuse(owner, error, sidecarsBefore: before)
            throw error
        }
    }

    /// Releases the file of an open refused with `error`, removing the
    /// `-wal` and `-shm` it made; but those of a file replaced at the path
    /// are left: their names may now be the new file's.
    private static func _refuse(_ owner: _FileLock, _ error: PersistentStateError, sidecarsBefore before: Set<String>) {
        if case .fileReplaced = error {
            owner.release()
        } else {
            owner.refused(sidecarsBefore: before)
        }
    }
}

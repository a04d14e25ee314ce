import Foundation

// Opening the file at a path: an existing one, or a new one created when
// none is there, and the races between the two.

extension PersistentState {
    /// How many new files an open makes and loses to other opens before it
    /// gives up (``PersistentStateError/fileInUse(path:)``).
    static var _creationAttempts: Int { 4 }

    /// Opens the file at `path`, or creates it holding `initial` when no
    /// file is there.
    ///
    /// NB: deciding that no file is there and putting the new one in place
    /// are two steps: another open (another process, or another
    /// `PersistentState` of this one) may create the file in between. The
    /// new file is put in place only where no file is (``_FileLock/moveInto(_:)``):
    /// the open that loses removes its new file and opens the winner's as
    /// an existing file, which gives ``PersistentStateError/fileInUse(path:)``
    /// while the winner has it open. The same when another process's
    /// clean-up of stale creations removed its hidden file (while it was not
    /// locked: see ``_createNew(at:initial:options:)``).
    ///
    /// - Complexity: that of ``_openExisting(_:path:options:migrations:)``,
    ///   or of writing `initial`, per attempt; at most ``_creationAttempts``
    ///   attempts.
    static func _open(
        path: String, options: PersistenceOptions, migrations: [Migration], initial: () -> State
    ) throws(PersistentStateError) -> (_FileLock, _Opened) {
        var initialState: State?
        for _ in 0 ..< _creationAttempts {
            if let owner = try _FileLock.existing(at: path, faults: options._openFaults) {
                return (owner, try _openExisting(owner, path: path, options: options, migrations: migrations))
            }
            let state = initialState ?? initial()
            initialState = state
            if let created = try _createNew(at: path, initial: state, options: options) { return created }
        }
        throw .fileInUse(path: path)
    }

    /// Creates the file at `path` holding `initial`, and opens it; `nil`
    /// when another open won the path: a file appeared there meanwhile, or
    /// another process's clean-up removed the hidden file (nothing is left
    /// of this one's then).
    ///
    /// A new file is never made in place: it is written whole under a
    /// hidden name beside `path` (``_FileLock/creatingBeside(_:faults:)``)
    /// and moved there once written, so that a crash while creating it
    /// leaves no file at `path` (an empty one would be refused at the next
    /// open).
    ///
    /// NB: another process's clean-up may take a hidden file while no lock
    /// is on it: between its creation and its lock, and while the
    /// connection that wrote it closes (closing a descriptor drops a POSIX
    /// lock). Where it removed it, SQLite opening the hidden name makes a
    /// new file there (the connection's check of the file it opened
    /// refuses it: ``PersistentStateError/fileReplaced(path:)``), the lock
    /// taken again finds the clean-up's (``PersistentStateError/fileInUse(path:)``),
    /// or the move finds no file: each is a lost creation, never a file
    /// moved into place while another one is locked.
    ///
    /// - Complexity: O(`initial`'s size): encoding it and writing it.
    static func _createNew(
        at path: String, initial: State, options: PersistenceOptions
    ) throws(PersistentStateError) -> (_FileLock, _Opened)? {
        let snapshot: Data
        do {
            snapshot = try _StateCoding.encode(initial)
        } catch {
            throw .saveFailed(path: path, reason: "the initial state does not encode: \(error)")
        }
        guard let owner = try _FileLock.creatingBeside(path, faults: options._openFaults) else { return nil }
        do throws(PersistentStateError) {
            let creating = try _StateDatabase(owner: owner, reportedPath: path, lockingExclusively: true)
            do throws(PersistentStateError) {
                try creating.prepare(creatingWith: snapshot, version: options.version)
            } catch {
                try? creating.close()   // NB: the file is removed next.
                throw error
            }
            try creating.close()
            // NB: closing the connection released the lock (POSIX).
            try owner.renew()
        } catch {
            // NB: lost (see above); SQLite's error when the clean-up removed
            // the file while it wrote it, which its name gone tells.
            let lost = owner.isUnlinked
            owner.abandonCreation()
            switch error {
            case .fileReplaced, .fileInUse: return nil
            default: if lost { return nil } else { throw error }
            }
        }
        let moved: Bool
        do {
            moved = try owner.moveInto(path)
        } catch {
            owner.abandonCreation()
            throw error
        }
        guard moved else {
            owner.abandonCreation()
            return nil
        }
        let database = try _StateDatabase(owner: owner, reportedPath: path)
        try database.prepare(creatingWith: nil, version: options.version)
        return (owner, _Opened(database: database, loaded: initial, sequence: 0, logged: 0, restorable: nil))
    }
}

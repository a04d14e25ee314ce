/// Faults a test injects into one open, each at the step it names
/// (``PersistenceOptions/_openFaults``; package access: for tests).
///
/// NB: carried by the options of the open it faults, not process-wide:
/// tests running in parallel each fault their own open.
package struct _OpenFaults: Sendable {
    /// Runs once the new file exists under its hidden name (given), before
    /// this process locks it: another process's clean-up of stale creations
    /// may remove it there. Runs while this process's registry of owned
    /// files is locked (`_FileIdentity.registry`).
    package var hiddenFileCreated: (@Sendable (_ hiddenPath: String) -> Void)?
    /// Runs right before each call that puts the new file at its path:
    /// `"link"`, then `"rename"` when `link` failed.
    package var placing: (@Sendable (_ call: String) -> Void)?
    /// `link` of the new file to its path fails with this error, untried
    /// (`EPERM`: a file system without hard links).
    package var linkError: Int32?
    /// Runs when the open of an existing file found none at the path
    /// (given), before it tells a symbolic link to nothing from a file
    /// another process created there since. Runs while this process's
    /// registry of owned files is locked.
    package var foundNoFile: (@Sendable (_ path: String) -> Void)?
    /// Runs right before SQLite opens the path (given) that this open owns.
    package var connectionOpening: (@Sendable (_ path: String) -> Void)?
    /// The sync of the folder, once the new file is in it, fails with this
    /// error, untried (`EIO`).
    package var folderSyncError: Int32?

    package init() {}
}

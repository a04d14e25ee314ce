import FastStore

/// Why a ``PersistentState`` could not open its file, or could not save.
///
/// Opening never writes over a file it refuses: the file is left as it was.
public enum PersistentStateError: Error, Sendable, CustomStringConvertible {
    /// Another ``PersistentState`` (in this process or another one) has the
    /// file open. One owner at a time: close the other, or use another file.
    case fileInUse(path: String)
    /// The file at the path was replaced while it was being opened: another
    /// file renamed over it, or a symbolic link on the path changed, between
    /// the moment this open locked the file and the moment SQLite opened the
    /// path (by its name), so that SQLite opened a file this open does not
    /// own. Nothing was read from it or written to it: the file now at the
    /// path is left as it was. Opening again opens it.
    case fileReplaced(path: String)
    /// The file is not a SQLite database, SQLite reports it damaged
    /// (truncated, overwritten), or SQLite cannot read it without writing it
    /// (a hot journal beside it: another program's transaction left
    /// unfinished): `reason` is SQLite's message, or says so. The file is
    /// left as it was.
    case unreadableFile(path: String, reason: String)
    /// The file is a SQLite database without FastStore's tables, or with a
    /// format this version does not know. The file is left as it was.
    case notAStateFile(path: String, reason: String)
    /// The file is a state file, but a row of it holds what no save writes:
    /// NULL or a value of another type in a column, a checksum that does not
    /// match its blob, a batch out of order in the log, a patch that does
    /// not decode. `table` names the table, `row` the row (SQLite's rowid;
    /// `nil` when a row is missing), `reason` what is wrong. The file is
    /// left as it was.
    case damaged(path: String, table: String, row: Int64?, reason: String)
    /// The file exists and holds no byte. A ``PersistentState`` never leaves
    /// an empty file (it creates a new file under another name and moves it
    /// in place once written), so an empty file at the path is damage or
    /// another program's: it is refused, not overwritten. Remove it to start
    /// anew from `initial`. The file is left as it was.
    case emptyFile(path: String)
    /// The stored state does not decode as `State`: its `Codable` shape
    /// changed without a new ``PersistenceOptions/version``. `codingPath`
    /// names where (`todos[3].title`). The file is left as it was.
    case stateDoesNotDecode(path: String, codingPath: String, reason: String)
    /// The file was saved with another ``PersistenceOptions/version`` of the
    /// state's shape, and no ``PersistentState/Migration`` from it was
    /// given. The file is left as it was.
    case versionMismatch(path: String, saved: Int, expected: Int)
    /// Opening a file of version `from` through its
    /// ``PersistentState/Migration`` failed: the conversion threw, or the
    /// converted state does not encode (`reason`). The file is left as it
    /// was.
    case migrationFailed(path: String, from: Int, reason: String)
    /// The patch saved as batch `sequence` does not apply to the state
    /// before it (a file edited by hand, or written by another state type).
    /// The file is left as it was.
    case patchDoesNotApply(path: String, sequence: Int64, error: PatchError)
    /// Saving failed (a full disk, a file removed, an I/O error): `reason`
    /// is SQLite's message. The store keeps working in memory, nothing
    /// published is dropped, and saving is retried; ``PersistentState/flush()``
    /// throws this until a save succeeds.
    case saveFailed(path: String, reason: String)
    /// A ``PersistentState`` saves one store: ``PersistentState/keepSaving(_:)``
    /// was called a second time.
    case alreadySaving(path: String)
    /// The ``PersistentState`` was closed: it saves nothing more.
    case closed(path: String)
    /// ``PersistentState/history(of:limit:)`` was called a second time: a
    /// file keeps one history.
    case historyAlreadyMade(path: String)
    /// The history was saved without some of its entries: the patch of an
    /// entry does not encode (a non-finite `Double`), and the history is cut
    /// there (`kept` names the entries saved, `reason` the patch that does
    /// not encode). The state is saved, and so are the entries `kept`.
    /// Reported to ``PersistenceOptions/onSaveFailure`` each time a history
    /// is saved cut; no `nil` follows it (saving works).
    case historyCut(path: String, kept: ClosedRange<Int>, reason: String)
    /// The history saved in the file does not decode as the state's patches
    /// (`reason`). The state itself opened; the saved history is dropped,
    /// and calling ``PersistentState/history(of:limit:)`` again makes a new
    /// one.
    case historyDoesNotDecode(path: String, reason: String)

    public var description: String {
        switch self {
        case .fileInUse(let path):
            return "PersistentStateError.fileInUse: '\(path)' is open in another PersistentState (this process or another one)"
        case .fileReplaced(let path):
            return "PersistentStateError.fileReplaced: '\(path)' was replaced (renamed over, or a symbolic link changed) while it was being opened: SQLite opened another file than the one locked; nothing was read or written, and the file now there was left as it was (open again to open it)"
        case .unreadableFile(let path, let reason):
            return "PersistentStateError.unreadableFile: '\(path)' is not a readable SQLite database (\(reason)); it was left as it was"
        case .notAStateFile(let path, let reason):
            return "PersistentStateError.notAStateFile: '\(path)': \(reason); it was left as it was"
        case .damaged(let path, let table, let row, let reason):
            let place = row.map { "row \($0) of table \(table)" } ?? "table \(table)"
            return "PersistentStateError.damaged: '\(path)' is damaged in \(place): \(reason); it was left as it was"
        case .emptyFile(let path):
            return "PersistentStateError.emptyFile: '\(path)' is empty (0 bytes): refused rather than overwritten (remove it to start anew); it was left as it was"
        case .stateDoesNotDecode(let path, let codingPath, let reason):
            return "PersistentStateError.stateDoesNotDecode: the state saved in '\(path)' does not decode at '\(codingPath)': \(reason) (its Codable shape changed without a new PersistenceOptions.version?); the file was left as it was"
        case .versionMismatch(let path, let saved, let expected):
            return "PersistentStateError.versionMismatch: '\(path)' holds a state saved with version \(saved) of its shape, not \(expected); it was left as it was"
        case .migrationFailed(let path, let from, let reason):
            return "PersistentStateError.migrationFailed: migrating the state saved in '\(path)' from version \(from) failed: \(reason); the file was left as it was"
        case .patchDoesNotApply(let path, let sequence, let error):
            return "PersistentStateError.patchDoesNotApply: batch \(sequence) saved in '\(path)' does not apply: \(error); the file was left as it was"
        case .saveFailed(let path, let reason):
            return "PersistentStateError.saveFailed: saving to '\(path)' failed (\(reason)); the store keeps its state in memory and saving is retried"
        case .alreadySaving(let path):
            return "PersistentStateError.alreadySaving: the PersistentState of '\(path)' already saves a store"
        case .closed(let path):
            return "PersistentStateError.closed: the PersistentState of '\(path)' was closed"
        case .historyAlreadyMade(let path):
            return "PersistentStateError.historyAlreadyMade: the PersistentState of '\(path)' already made its store's history"
        case .historyCut(let path, let kept, let reason):
            return "PersistentStateError.historyCut: the history saved in '\(path)' keeps only its entries \(kept.lowerBound)...\(kept.upperBound): \(reason); the state is saved"
        case .historyDoesNotDecode(let path, let reason):
            return "PersistentStateError.historyDoesNotDecode: the history saved in '\(path)' does not decode: \(reason); it was dropped (the state opened), and history(of:) makes a new one"
        }
    }
}

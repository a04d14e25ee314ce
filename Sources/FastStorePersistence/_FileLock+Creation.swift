import CFastStorePersistence
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Creating a new state file: written whole under a hidden name beside its
// path, then moved to the path.

extension _FileLock {
    /// Creates a new file with a name of its own beside `path` (hidden,
    /// `.NAME.faststore-new-UUID`) and takes its ownership: the state file
    /// is written there, then moved to `path` by ``moveInto(_:)``, so that
    /// a crash while creating it leaves no file at `path`. `nil` when
    /// another process's clean-up of stale creations took it before it was
    /// locked (nothing is left of it then).
    static func creatingBeside(_ path: String, faults: _OpenFaults) throws(PersistentStateError) -> _FileLock? {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        guard let resolved = realpath(folder, nil) else {
            throw .unreadableFile(path: path, reason: "cannot resolve its folder '\(folder)': \(String(cString: strerror(errno)))")
        }
        let directory = String(cString: resolved)
        free(resolved)
        let name = url.lastPathComponent
        // NB: the clean-up, the creation and the registration in one
        // critical section: another open of this process never takes a
        // creation of this one for a stale one. Another process's clean-up
        // may take it before its lock (see `PersistentState._createNew`).
        _FileIdentity.registry.lock()
        defer { _FileIdentity.registry.unlock() }
        removeStaleCreations(of: name, in: directory)
        let temporary = directory + "/." + name + hiddenInfix + UUID().uuidString
        let fd = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .saveFailed(path: path, reason: "cannot create '\(temporary)': \(String(cString: strerror(errno)))")
        }
        faults.hiddenFileCreated?(temporary)
        let lock: _FileLock
        do {
            lock = try _FileLock(descriptor: fd, reportedPath: path, faults: faults)
        } catch {
            if case .fileInUse = error { return nil }
            unlink(temporary)
            throw error
        }
        lock.path = temporary
        return lock
    }

    /// What names a hidden new file: `.NAME` + this + a UUID.
    static var hiddenInfix: String { ".faststore-new-" }

    /// Moves the file made by ``creatingBeside(_:faults:)`` to `path`, unless
    /// a file appeared there meanwhile, or another process's clean-up removed
    /// it: `false` then (the caller abandons the creation). The ownership
    /// moves with it. Never replaces a file at `path`.
    ///
    /// - Throws: ``PersistentStateError/saveFailed(path:reason:)`` when it
    ///   cannot be moved (the caller abandons the creation).
    func moveInto(_ path: String) throws(PersistentStateError) -> Bool {
        let temporary = self.path
        let directory = (temporary as NSString).deletingLastPathComponent
        let target = directory + "/" + URL(fileURLWithPath: path).lastPathComponent
        // NB: link, not rename: it fails when the name exists, where rename
        // would replace a file another open just created. Where it fails
        // otherwise (a file system without hard links), a rename that fails
        // too when the name exists; never a plain one (a check for a file
        // at the path before it leaves a window).
        faults.placing?("link")
        var error: Int32 = 0
        if let fault = faults.linkError { error = fault } else if link(temporary, target) != 0 { error = errno }
        let linkError = error
        var renamed = false
        if error != 0 && error != EEXIST {
            faults.placing?("rename")
            if cfaststore_rename_exclusive(temporary, target) == 0 {
                (error, renamed) = (0, true)
            } else {
                error = errno
            }
        }
        if error == EEXIST || (error != 0 && isUnlinked) { return false }
        if [EINVAL, ENOSYS, ENOTSUP, EOPNOTSUPP].contains(error) {
            throw .saveFailed(path: path, reason: "cannot move the new file to it: the file system has neither hard links (link: \(String(cString: strerror(linkError)))) nor a rename that never replaces a file")
        }
        if error != 0 {
            throw .saveFailed(path: path, reason: "cannot move the new file to it: \(String(cString: strerror(error)))")
        }
        if !renamed { unlink(temporary) }
        // NB: the new name on disk before the open returns: a crash could
        // otherwise lose it, and with it every batch acknowledged in the
        // file (SQLite syncs the folder when it creates the `-wal`, but
        // ignores a failure). A failure fails the open, the new file
        // removed (if the path still names it), so that nothing was
        // acknowledged in a file whose name may not last.
        if let error = syncFolder(directory) {
            var info = stat()
            if stat(target, &info) == 0, _FileIdentity(info) == identity { unlink(target) }
            throw .saveFailed(path: path, reason: "cannot sync its folder '\(directory)' once the new file was moved there (\(error)): a crash could lose the file, which was removed")
        }
        self.path = target
        return true
    }

    /// Syncs the folder `directory` (its entries on disk): `nil`, or what
    /// failed. A file system that cannot sync a folder at all (`EINVAL`,
    /// `ENOTSUP`, `ENOSYS`) counts as synced: its entries are as durable
    /// as it makes them, which nothing here can change (SQLite does the
    /// same).
    private func syncFolder(_ directory: String) -> String? {
        let folder = open(directory, O_RDONLY | O_CLOEXEC)
        guard folder >= 0 else { return "open: \(String(cString: strerror(errno)))" }
        defer { close(folder) }
        var error: Int32 = 0
        if let fault = faults.folderSyncError { error = fault } else if fsync(folder) != 0 { error = errno }
        if error == 0 || [EINVAL, ENOTSUP, EOPNOTSUPP, ENOSYS].contains(error) { return nil }
        return "fsync: \(String(cString: strerror(error)))"
    }

    /// Whether the file has no name left (another process's clean-up
    /// removed it).
    var isUnlinked: Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && info.st_nlink == 0
    }

    /// Removes what an earlier process's crash while creating `name` left:
    /// a hidden new file no one owns, and the files SQLite made beside it.
    ///
    /// NB: only a hidden file's own name (`.NAME` + ``hiddenInfix`` + a
    /// UUID) is taken for one: its `-wal`, `-shm` and `-journal` go with it
    /// once it is locked, never on their own (no lock is on them: those of
    /// another process's creation under way would go too).
    static func removeStaleCreations(of name: String, in directory: String) {
        let prefix = "." + name + hiddenInfix
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        _FileIdentity.registry.lock()
        defer { _FileIdentity.registry.unlock() }
        for stale in names where stale.hasPrefix(prefix) && UUID(uuidString: String(stale.dropFirst(prefix.count))) != nil {
            let path = directory + "/" + stale
            // NB: another creation of this process is never opened (see
            // `existing(at:faults:)`).
            var before = stat()
            guard stat(path, &before) == 0, !_FileIdentity.isOwned(_FileIdentity(before)) else { continue }
            let fd = open(path, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { continue }
            var info = stat()
            guard fstat(fd, &info) == 0, _FileIdentity.register(_FileIdentity(info)) else {
                _FileIdentity.park(fd, on: _FileIdentity(info))
                continue
            }
            // NB: locked by no one: its creator died before moving it (or
            // its creator's lock is off for a moment: it finds its file
            // gone, see `PersistentState._createNew`). Its name last, so
            // that a crash here leaves it to be found again.
            if lock(fd) == 0 {
                for suffix in ["-wal", "-shm", "-journal", ""] { unlink(path + suffix) }
            }
            close(fd)
            _FileIdentity.unregister(_FileIdentity(info))
        }
    }

    /// Removes the file made by ``creatingBeside(_:faults:)`` and what SQLite made
    /// beside it, and releases it: a creation that failed leaves nothing.
    func abandonCreation() {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
        release()
    }
}

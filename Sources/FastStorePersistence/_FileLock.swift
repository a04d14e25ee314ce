import CFastStorePersistence
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ownership of one state file, by the file's identity (its device and
/// inode), not by how its path is spelled: a symlink, a hard link, a
/// relative path or one with `..` name the same file and the same owner.
///
/// Two locks, both on the file itself (no lock file beside it):
/// - in this process, a registry of the identities owned;
/// - across processes, an exclusive POSIX record lock (`F_SETLK`) on one
///   byte far past any byte SQLite locks (`_FileLock.lockedByte`). The
///   system releases it when the process ends, however it ends, so a crash
///   leaves no stale lock.
///
/// NB: a POSIX record lock, not `flock` or an open-file-description lock
/// (`F_OFD_SETLK`): those belong to the open file description, which a
/// process spawned by another thread shares until it execs, so a file
/// closed and reopened at once in this process could find its old lock
/// still held. A POSIX lock belongs to the process and is not inherited; it
/// is released when the process closes *any* descriptor of the file. So
/// this type never opens a file this process owns: the registry is checked
/// by the path's identity before the file is opened, under the registry's
/// lock, and a descriptor opened on an owned file all the same (the path
/// renamed over between the check and the open) is kept open until the
/// owner releases the file; an owner closes its descriptor before it
/// leaves the registry. SQLite keeps its descriptor open while the file is
/// open; other code of the app that opens and closes the file meanwhile (a
/// backup copying it) drops the lock between processes (the in-process
/// registry still holds).
final class _FileLock: @unchecked Sendable {
    /// The file's path with symlinks, `.` and `..` resolved: the path given
    /// to SQLite (its `-wal` and `-shm` are named after it).
    // NB: set by `init` and the creation (`_FileLock+Creation.swift`) only.
    var path: String
    var descriptor: Int32
    var identity: _FileIdentity?
    /// The faults a test injects into this open (none in an app).
    let faults: _OpenFaults

    /// One byte past anything SQLite locks (its lock bytes sit at 1 GiB).
    static let lockedByte: off_t = 1 << 62

    /// Takes the ownership of the existing file at `path`. Returns `nil`
    /// when no file is there. Throws ``PersistentStateError/fileInUse(path:)``
    /// when another owner has it, ``PersistentStateError/emptyFile(path:)``
    /// when it holds no byte.
    static func existing(at path: String, faults: _OpenFaults) throws(PersistentStateError) -> _FileLock? {
        // NB: an owned file is never opened here (closing the descriptor
        // would drop its owner's lock between processes).
        _FileIdentity.registry.lock()
        defer { _FileIdentity.registry.unlock() }
        var fd: Int32 = -1
        // NB: a file another process creates at the path between the open
        // that found none and the check for a symbolic link is opened on
        // the next try (a few tries: the path would have to keep changing).
        var tries = 0
        while fd < 0 {
            tries += 1
            var before = stat()
            if stat(path, &before) == 0, _FileIdentity.isOwned(_FileIdentity(before)) {
                throw .fileInUse(path: path)
            }
            fd = open(path, O_RDWR | O_CLOEXEC)
            guard fd < 0 else { break }
            let error = errno
            guard error == ENOENT else {
                throw .unreadableFile(path: path, reason: "cannot open it: \(String(cString: strerror(error)))")
            }
            faults.foundNoFile?(path)
            // NB: a symlink to nothing is no missing file: creating it
            // would create its target, elsewhere.
            var link = stat()
            guard lstat(path, &link) == 0 else { return nil }
            var target = stat()
            if (link.st_mode & S_IFMT) == S_IFLNK, stat(path, &target) != 0 {
                throw .unreadableFile(path: path, reason: "it is a symbolic link to a missing file")
            }
            if tries == 4 {
                throw .unreadableFile(path: path, reason: "it kept appearing and disappearing while it was being opened")
            }
        }
        let lock = try _FileLock(descriptor: fd, reportedPath: path, faults: faults)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            lock.release()
            throw .unreadableFile(path: path, reason: "cannot read its size: \(String(cString: strerror(errno)))")
        }
        if info.st_size == 0 {
            lock.release()
            throw .emptyFile(path: path)
        }
        guard let resolved = realpath(path, nil) else {
            lock.release()
            throw .unreadableFile(path: path, reason: "cannot resolve its path: \(String(cString: strerror(errno)))")
        }
        lock.path = String(cString: resolved)
        free(resolved)
        return lock
    }

    /// Runs the test's fault before SQLite opens ``path`` (none in an app).
    func willOpenConnection() {
        faults.connectionOpening?(path)
    }

    /// Checks that `connection` (a `sqlite3 *` SQLite just opened on
    /// ``path``, before anything read the file) opened the file this lock
    /// owns, not another one renamed over the path since it was locked (or
    /// a symbolic link on it changed): SQLite opens the file by its name.
    ///
    /// Two checks, each against the path as it is now: SQLite's
    /// (`SQLITE_FCNTL_HAS_MOVED`: the inode it opened is the path's), then
    /// this lock's (the path's device and inode are the file's it locked).
    ///
    /// NB: the two checks are two instants: a file renamed over the path
    /// before SQLite's open and the locked one renamed back exactly between
    /// the two checks passes them (see docs/persistence.md, "Faults").
    ///
    /// - Throws: ``PersistentStateError/fileReplaced(path:)``.
    func checkOpened(by connection: OpaquePointer?, reportedPath: String) throws(PersistentStateError) {
        var moved: Int32 = 0
        // NB: not SQLITE_OK when the VFS cannot tell (not SQLite's unix
        // one): the check of the path alone is left then.
        let code = cfaststore_file_has_moved(UnsafeMutableRawPointer(connection), &moved)
        var info = stat()
        guard code != 0 || moved == 0, stat(path, &info) == 0, _FileIdentity(info) == identity else {
            throw .fileReplaced(path: reportedPath)
        }
    }

    /// Takes the lock again: closing any descriptor of the file in this
    /// process (the connection that created it) released it.
    func renew() throws(PersistentStateError) {
        guard descriptor >= 0 else { return }
        let result = Self.lock(descriptor)
        if result != 0 { throw .fileInUse(path: path) }
    }

    init(descriptor fd: Int32, reportedPath: String, faults: _OpenFaults) throws(PersistentStateError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            close(fd)
            throw .unreadableFile(path: reportedPath, reason: "cannot read its identity: \(String(cString: strerror(error)))")
        }
        let identity = _FileIdentity(info)
        guard _FileIdentity.register(identity) else {
            // NB: kept open until the owner lets go: closing it would drop
            // the owner's lock (see the type's notes).
            _FileIdentity.park(fd, on: identity)
            throw .fileInUse(path: reportedPath)
        }
        let result = Self.lock(fd)
        guard result == 0 else {
            // NB: closed before it leaves the registry: the other way round,
            // another thread of this process could register and lock it in
            // between, and this close would drop that lock.
            close(fd)
            _FileIdentity.unregister(identity)
            if result == EAGAIN || result == EACCES || result == EWOULDBLOCK { throw .fileInUse(path: reportedPath) }
            throw .unreadableFile(path: reportedPath, reason: "cannot lock it: \(String(cString: strerror(result)))")
        }
        self.descriptor = fd
        self.identity = identity
        self.path = reportedPath
        self.faults = faults
    }

    /// The lock on ``lockedByte``: 0, or the error.
    static func lock(_ fd: Int32) -> Int32 {
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        request.l_start = lockedByte
        request.l_len = 1
        return fcntl(fd, F_SETLK, &request) == 0 ? 0 : errno
    }

    /// The files SQLite keeps beside the file (`-wal`, `-shm`, `-journal`)
    /// that exist now.
    func sidecars() -> Set<String> {
        var present: Set<String> = []
        for suffix in ["-wal", "-shm", "-journal"] {
            var info = stat()
            if lstat(path + suffix, &info) == 0 { present.insert(suffix) }
        }
        return present
    }

    /// A refused open, its connection closed: removes the files beside the
    /// file that were not there `before` (the `-wal` and `-shm` SQLite
    /// creates to read a WAL file), so that the folder is left as it was,
    /// and releases the file. Only while still owned (closing the
    /// connection released the lock: it is taken again first), so that no
    /// other connection uses them.
    func refused(sidecarsBefore before: Set<String>) {
        if (try? renew()) != nil {
            for suffix in sidecars().subtracting(before) { unlink(path + suffix) }
        }
        release()
    }

    /// Releases the ownership (idempotent).
    func release() {
        guard descriptor >= 0 else { return }
        // NB: closed before it leaves the registry (see `init`).
        close(descriptor)
        descriptor = -1
        if let identity { _FileIdentity.unregister(identity) }
        identity = nil
    }

    deinit { release() }
}

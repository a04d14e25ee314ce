#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock on `<path>.lock` (`flock`), held while a
/// ``PersistentState`` has its file open: a second owner, in this process or
/// another, is refused at once. The system releases it when the process
/// ends, however it ends, so a crash leaves no stale lock.
final class _FileLock: @unchecked Sendable {
    private var descriptor: Int32

    /// Takes the lock, or throws ``PersistentStateError/fileInUse(path:)``.
    init(for path: String) throws(PersistentStateError) {
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .unreadableFile(path: path, reason: "cannot open its lock file '\(lockPath)': \(String(cString: strerror(errno)))")
        }
        // NB: flock locks belong to the open file description, so a second
        // open in this same process conflicts too.
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let error = errno
            close(fd)
            if error == EWOULDBLOCK { throw .fileInUse(path: path) }
            throw .unreadableFile(path: path, reason: "cannot lock '\(lockPath)': \(String(cString: strerror(error)))")
        }
        descriptor = fd
    }

    /// Releases the lock (idempotent).
    func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

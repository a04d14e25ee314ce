import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's identity: its device and inode.
struct _FileIdentity: Hashable {
    let device: UInt64
    let inode: UInt64

    // NB: `dev_t` is signed on Apple platforms, unsigned on Linux.
    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
    }

    // NB: the files this process owns, across every PersistentState, and
    // the descriptors opened on them by a refused open, closed when their
    // owner lets go. Recursive: `_FileLock.existing(at:)` holds it from the
    // check of the path to the registration.
    private nonisolated(unsafe) static var owned: Set<_FileIdentity> = []
    private nonisolated(unsafe) static var parked: [_FileIdentity: [Int32]] = [:]
    static let registry = NSRecursiveLock()

    /// Whether `identity` is owned in this process.
    static func isOwned(_ identity: _FileIdentity) -> Bool {
        registry.withLock { owned.contains(identity) }
    }

    /// Adds `identity` to the files owned: `false` when it is owned already.
    static func register(_ identity: _FileIdentity) -> Bool {
        registry.withLock { owned.insert(identity).inserted }
    }

    /// Removes `identity` from the files owned, and closes the descriptors
    /// parked on it.
    static func unregister(_ identity: _FileIdentity) {
        let descriptors = registry.withLock {
            owned.remove(identity)
            return parked.removeValue(forKey: identity) ?? []
        }
        for fd in descriptors { close(fd) }
    }

    /// Keeps `fd`, opened on the owned `identity`, open until its owner
    /// unregisters it (closed now when nobody owns it).
    static func park(_ fd: Int32, on identity: _FileIdentity) {
        let closeNow = registry.withLock {
            guard owned.contains(identity) else { return true }
            parked[identity, default: []].append(fd)
            return false
        }
        if closeNow { close(fd) }
    }
}

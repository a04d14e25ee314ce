#if canImport(Darwin)
import Darwin
#else
import Synchronization
#endif

/// A non-recursive mutual-exclusion lock over the platform's cheapest
/// primitive: `os_unfair_lock` on Apple platforms, the standard library's
/// futex-based `Mutex` elsewhere.
///
/// A lock is always unlocked by the thread that locked it (both primitives
/// require it). Package access: the package's other modules (the ReSwift
/// facade) use this one lock, not one of their own.
///
/// NB: on Linux, `pthread_mutex_t` cost about 55 instructions per
/// uncontended lock and unlock (its type and elision checks), `Mutex` a
/// compare-and-exchange each: about 11 round trips per consumed dispatch.
/// `Mutex` needs macOS 15 / iOS 18, so Apple platforms keep
/// `os_unfair_lock`, in a manually allocated buffer so that its address is
/// stable.
@usableFromInline
package final class _Lock: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let _primitive: UnsafeMutablePointer<os_unfair_lock>

    @inlinable
    package init() {
        _primitive = .allocate(capacity: 1)
        _primitive.initialize(to: os_unfair_lock())
    }

    deinit {
        _primitive.deinitialize(count: 1)
        _primitive.deallocate()
    }

    @inlinable @inline(__always)
    package func lock() { os_unfair_lock_lock(_primitive) }

    @inlinable @inline(__always)
    package func unlock() { os_unfair_lock_unlock(_primitive) }
    #else
    @usableFromInline let _mutex = Mutex(())
    /// Written (release) before each unlock and read (acquire) after each
    /// lock: the happens-before edge of the lock, made visible to
    /// ThreadSanitizer.
    ///
    /// NB: a contended `Mutex` is handed over by the kernel (a
    /// priority-inheriting futex), with no atomic operation in user space
    /// for ThreadSanitizer to see, so it reported the data the lock guards
    /// as racing. On x86 these are two plain moves; the lock orders them,
    /// so each read sees the previous holder's write.
    @usableFromInline let _edge = Atomic<Int>(0)

    @inlinable
    package init() {}

    @inlinable @inline(__always)
    package func lock() {
        _mutex._unsafeLock()
        _ = _edge.load(ordering: .acquiring)
    }

    @inlinable @inline(__always)
    package func unlock() {
        _edge.store(0, ordering: .releasing)
        _mutex._unsafeUnlock()
    }
    #endif

    @inlinable @inline(__always)
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A non-recursive mutual-exclusion lock over the platform's cheapest
/// primitive (`os_unfair_lock` on Apple platforms, `pthread_mutex_t`
/// elsewhere).
///
/// The storage lives in a manually allocated buffer so that its address is
/// stable, as both primitives require.
@usableFromInline
internal final class _Lock: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline typealias Primitive = os_unfair_lock
    #else
    @usableFromInline typealias Primitive = pthread_mutex_t
    #endif

    @usableFromInline let _primitive: UnsafeMutablePointer<Primitive>

    @inlinable
    internal init() {
        _primitive = .allocate(capacity: 1)
        #if canImport(Darwin)
        _primitive.initialize(to: os_unfair_lock())
        #else
        _primitive.initialize(to: pthread_mutex_t())
        let rc = pthread_mutex_init(_primitive, nil)
        precondition(rc == 0, "FastStore: pthread_mutex_init failed (\(rc))")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(_primitive)
        #endif
        _primitive.deinitialize(count: 1)
        _primitive.deallocate()
    }

    @inlinable @inline(__always)
    internal func lock() {
        #if canImport(Darwin)
        os_unfair_lock_lock(_primitive)
        #else
        pthread_mutex_lock(_primitive)
        #endif
    }

    @inlinable @inline(__always)
    internal func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(_primitive)
        #else
        pthread_mutex_unlock(_primitive)
        #endif
    }

    @inlinable @inline(__always)
    internal func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

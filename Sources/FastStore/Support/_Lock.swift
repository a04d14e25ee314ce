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

/// A thread-local slot holding one class instance, over `pthread_key_t`.
///
/// NB: FastStore's read tracking and write journal are consulted on every
/// versioned read and write; `pthread_getspecific` costs a few nanoseconds,
/// far less than `Thread.current.threadDictionary`, and works in synchronous
/// code where `@TaskLocal` would not be visible to the reducer's callees.
@usableFromInline
internal final class _ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    @usableFromInline let _key: pthread_key_t

    @usableFromInline
    internal init() {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key, nil)
        precondition(rc == 0, "FastStore: pthread_key_create failed (\(rc))")
        _key = key
    }

    /// The value for the calling thread, unretained: the setter's caller keeps
    /// it alive for as long as it is installed.
    @inlinable
    internal var value: Value? {
        @inline(__always) get {
            guard let raw = pthread_getspecific(_key) else { return nil }
            return Unmanaged<Value>.fromOpaque(raw).takeUnretainedValue()
        }
        set {
            let raw = newValue.map { Unmanaged.passUnretained($0).toOpaque() }
            pthread_setspecific(_key, raw)
        }
    }
}

import CFastStore
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The tracking state of one thread: the read recorder of the selector
/// being evaluated, the write journal of the drain being reduced, the store
/// draining on the thread, and whether reads register Observation accesses.
/// The one thread-local slot of FastStore.
///
/// Versioned types never touch it: they call the hooks of ``_Tracking``.
/// Installers (`_ReadRecorder.record`, `_WriteJournal.record`, the store's
/// drain) set a field for the duration of a call and restore the outer value
/// afterwards, so installations nest.
///
/// NB: one context per thread, made on first installation and released when
/// the thread exits. A pthread key holds the reference that the thread's
/// exit releases; on Linux the hooks find the context through a C
/// thread-local (`CFastStore`), one load, elsewhere through the key. With
/// nothing installed, a versioned access costs that lookup, a load and a
/// nil check.
@usableFromInline
internal final class _TrackingContext {
    /// The recorder of the selector being evaluated on this thread.
    // NB: unretained, like the journal: an installer (`record`) keeps what
    // it installs alive until it restores the outer one, so the hooks use
    // them without a retain and release per read or write.
    @exclusivity(unchecked) @usableFromInline var _recorder: Unmanaged<_ReadRecorder>?
    /// The journal of the drain reducing on this thread.
    @exclusivity(unchecked) @usableFromInline var _journal: Unmanaged<_WriteJournal>?

    /// The recycler of the store draining on this thread (see
    /// `_NodeRecycler`), unretained like the journal.
    @exclusivity(unchecked) @usableFromInline var _recycler: Unmanaged<_NodeRecycler>?

    /// Whether `store`'s drain runs on this thread, innermost or around
    /// another store's drain that it started: what the calls that would wait
    /// for the store's drain ask (history moves, `flush()`,
    /// `waitUntilIdle()`).
    ///
    /// - Complexity: O(1) when no drains nest; else O(drains nested).
    @inlinable
    func isDraining(_ store: ObjectIdentifier) -> Bool {
        drainingStore == store || (!outerDrainingStores.isEmpty && outerDrainingStores.contains(store))
    }

    /// Whether `store`'s drain runs anywhere up the calling thread's stack
    /// (see ``isDraining(_:)``).
    @inlinable
    static func isDraining(_ store: ObjectIdentifier) -> Bool {
        ifPresent?.isDraining(store) ?? false
    }

    /// The recorder of the selector being evaluated on this thread.
    @inlinable var recorder: _ReadRecorder? { _recorder?.takeUnretainedValue() }
    /// The journal of the drain reducing on this thread.
    @inlinable var journal: _WriteJournal? { _journal?.takeUnretainedValue() }
    /// The store whose drain runs innermost on this thread (its reducer,
    /// middleware or subscribers are running): what a read inside a drain
    /// sees (`Store.state`, `MiddlewareContext.state`).
    @exclusivity(unchecked) @usableFromInline var drainingStore: ObjectIdentifier?
    /// The stores whose drains run on this thread around the innermost one,
    /// outermost first: empty unless drains nest (a reducer, middleware or
    /// subscriber dispatching into another store that was idle).
    // NB: a drain pushes the store it nests in, only when there is one: a
    // drain that nests in none (the common case) pays a nil check, and a
    // nested one an append into capacity the thread kept (no allocation
    // after the thread's first nesting).
    @exclusivity(unchecked) @usableFromInline var outerDrainingStores: [ObjectIdentifier] = []
    /// The draining store whose Observation observers this thread is
    /// calling (its publish's `willSet`, and the `onChange` closures that
    /// calls): its `state` reads register there, as outside the drain, so a
    /// tracking an `onChange` starts observes what it reads.
    @exclusivity(unchecked) @usableFromInline var callingObserversOf: ObjectIdentifier?
    /// Whether versioned reads on this thread are told to `readObserver`:
    /// set when the thread reads a versioned store's `state`, cleared while
    /// a store drains on it. Selectors (a recorder installed) never are.
    @exclusivity(unchecked) @usableFromInline var observesReads = false
    #if FASTSTORE_INTERNAL_CHECKS
    /// The writes made on this thread to collections of more than
    /// `_WholeCheck.everyWriteUpTo` elements, up to `_WholeCheck.atMost`
    /// (see `_WholeCheck`).
    @exclusivity(unchecked) @usableFromInline var largeCollectionWrites = 0
    #endif
    /// Who is told of this thread's observed reads: a slot the Observation
    /// layer installs (see ``_ReadObserver``), so that the tracking layer
    /// calls nothing above it.
    @exclusivity(unchecked) @usableFromInline var readObserver: (any _ReadObserver)?

    /// Whether this context's thread is the process's main thread, where a
    /// ``MainStore`` is read and drained; found once, when the thread made
    /// its context.
    @usableFromInline let isMainThread: Bool

    @usableFromInline init() {
        isMainThread = _cfaststore_is_main_thread() != 0
    }

    /// The key whose value, on each thread that made a context, is that
    /// context (retained): it releases it when the thread exits. The hooks
    /// read the C thread-local instead.
    @usableFromInline static let _key: pthread_key_t = {
        var key = pthread_key_t()
        let rc = pthread_key_create(&key) { raw in
            // The thread exits: forget its context (code that runs later
            // in the exit makes a new one), then release it.
            #if os(Linux)
            _cfaststore_tracking_context_set(nil)
            #endif
            #if canImport(Darwin)
            Unmanaged<_TrackingContext>.fromOpaque(raw).release()
            #else
            if let raw { Unmanaged<_TrackingContext>.fromOpaque(raw).release() }
            #endif
        }
        precondition(rc == 0, "FastStore: pthread_key_create failed (\(rc))")
        return key
    }()

    /// The calling thread's context (retained by the thread's key), if one
    /// was made.
    ///
    /// NB: on Linux through the C thread-local, one load. Elsewhere through
    /// the key: on Apple platforms a C thread-local's storage is itself
    /// freed by a key destructor, which may run before this one.
    @inlinable
    static var _raw: UnsafeMutableRawPointer? {
        @inline(__always) get {
            #if os(Linux)
            _cfaststore_tracking_context_get()
            #else
            pthread_getspecific(_key)
            #endif
        }
    }

    /// The calling thread's context, if one was made.
    @inlinable
    static var ifPresent: _TrackingContext? {
        @inline(__always) get {
            guard let raw = _raw else { return nil }
            return Unmanaged<_TrackingContext>.fromOpaque(raw).takeUnretainedValue()
        }
    }

    /// Calls `body` with the calling thread's context, unretained, if one
    /// was made (a context lives as long as its thread).
    @inlinable @inline(__always)
    static func _withPresent(_ body: (_TrackingContext) -> Void) {
        guard let raw = _raw else { return }
        Unmanaged<_TrackingContext>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with the journal installed on the calling thread,
    /// unretained, if any; `nil` when none is.
    @inlinable @inline(__always)
    static func _withJournal<R>(_ body: (_WriteJournal) -> R) -> R? {
        guard let raw = _raw else { return nil }
        return Unmanaged<_TrackingContext>.fromOpaque(raw)._withUnsafeGuaranteedRef { context in
            guard let journal = context._journal else { return nil }
            return journal._withUnsafeGuaranteedRef(body)
        }
    }

    /// Calls `body` with the calling thread's versioned reads unobserved:
    /// the library's own reads outside selectors and drains (a scope's
    /// baseline, its value for a consumer), which no tracking asked for.
    /// Filed under the thread's look, they would be checked against the
    /// generation of whatever store the thread read last.
    ///
    /// - Complexity: O(1) besides `body`.
    @inlinable
    static func _withReadsUnobserved<R>(_ body: () -> R) -> R {
        guard let context = ifPresent, context.observesReads else { return body() }
        context.observesReads = false
        defer { context.observesReads = true }
        return body()
    }

    /// Calls `body` with the calling thread's versioned reads neither
    /// recorded nor observed: the library's own reads to find an element
    /// (an `IdentifiedList` comparing ids in a leaf), which are not the
    /// caller's reads.
    ///
    /// - Complexity: O(1) besides `body`.
    @inlinable @inline(__always)
    static func _withReadsUnrecorded<R>(_ body: () -> R) -> R {
        guard let raw = _raw else { return body() }
        return Unmanaged<_TrackingContext>.fromOpaque(raw)._withUnsafeGuaranteedRef { context in
            let recorder = context._recorder
            let observes = context.observesReads
            if recorder == nil && !observes { return body() }
            context._recorder = nil
            context.observesReads = false
            defer {
                context._recorder = recorder
                context.observesReads = observes
            }
            return body()
        }
    }

    /// The recycler installed on the calling thread, unretained, if any.
    @inlinable
    static var _recycler: Unmanaged<_NodeRecycler>? {
        @inline(__always) get {
            guard let raw = _raw else { return nil }
            return Unmanaged<_TrackingContext>.fromOpaque(raw)._withUnsafeGuaranteedRef { $0._recycler }
        }
    }

    /// The calling thread's context, made on first use.
    @inlinable
    static var current: _TrackingContext {
        ifPresent ?? _makeCurrent()
    }

    /// Calls `body` with the calling thread's context (made on first use),
    /// unretained: a context lives as long as its thread, so the hot paths
    /// (a drain, a journal's or a recorder's installation, a dispatch) pay
    /// no retain and release for it.
    @inlinable @inline(__always)
    static func _withCurrent<R>(_ body: (_TrackingContext) throws -> R) rethrows -> R {
        let raw = _raw ?? Unmanaged.passUnretained(_makeCurrent()).toOpaque()
        return try Unmanaged<_TrackingContext>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    @usableFromInline
    static func _makeCurrent() -> _TrackingContext {
        let context = _TrackingContext()
        let retained = Unmanaged.passRetained(context).toOpaque()
        pthread_setspecific(_key, retained)
        #if os(Linux)
        _cfaststore_tracking_context_set(retained)
        #endif
        return context
    }
}

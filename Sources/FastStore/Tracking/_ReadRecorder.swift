/// Records what versioned nodes a selector reads, while installed on the
/// calling thread by ``record(_:)``. Versioned types report reads through
/// ``_Tracking``'s hooks, never to a recorder directly.
@usableFromInline
internal final class _ReadRecorder {
    // NB: unchecked exclusivity: a recorder is used by the one thread it is
    // installed on.
    @exclusivity(unchecked) @usableFromInline var dependencies: [_Dependency] = []
    /// Set when something read under this recorder cannot be tracked by
    /// its dependencies (a ``Derived`` value that could not be memoized):
    /// the selection must then be evaluated at every consume.
    @exclusivity(unchecked) @usableFromInline var sawUntrackable = false

    @inlinable init() {}

    /// Runs `body` with this recorder installed on the calling thread
    /// (nesting restores the outer recorder afterwards).
    // NB: always inlined, so that `body` is too: a consumer's evaluation
    // exists in one copy per kind of selection (see `ConsumerHandle._run`),
    // and out of line the recording cost a closure context per call.
    @inlinable @inline(__always)
    func record<R>(_ body: () throws -> R) rethrows -> R {
        // NB: installed unretained: `self` is alive for this call, and the
        // outer recorder for its own installer's.
        try _TrackingContext._withCurrent { context in
            let outer = context._recorder
            context._recorder = Unmanaged.passUnretained(self)
            defer { context._recorder = outer }
            return try withExtendedLifetime(self) { try body() }
        }
    }
}

/// The Observation layer's state of one thread, installed in the thread's
/// tracking context as its read observer (``_ReadObserver``): the store
/// whose `state` the thread read last and the generation it got, and the
/// look the thread's observed reads are filed under.
///
/// NB: one per thread, made at the thread's first versioned `state` read
/// and released with the thread's context. `look` and `lookEpoch` are
/// guarded by the Observation hub's lock; the rest is the thread's own.
@usableFromInline
internal final class _ObservedThread: _ReadObserver {
    /// The store whose `state` this thread read last, and the generation
    /// of the state it got: an observed read checks that no publish came
    /// between (see `_ObservationHub.access`).
    @exclusivity(unchecked) @usableFromInline var observedPublication: _Publication?
    @exclusivity(unchecked) @usableFromInline var observedGeneration: UInt64 = 0
    /// The look this thread's observed reads are filed under (see
    /// `_Look`), at the use `lookEpoch` names.
    @exclusivity(unchecked) var look: _Look?
    @exclusivity(unchecked) var lookEpoch: UInt64 = 0
    /// The latest `state` read of each store this thread read (newest
    /// last; past ``_stateReadLimit``, only those some tracking holds), with
    /// the look it began: a value from an earlier read may be read after a
    /// later one, so an observed read checks them all (see
    /// `_ObservationHub._checkEarlierReads`).
    /// The thread's own; entries are dropped under the hub's lock.
    @exclusivity(unchecked) var stateReads: [_StateRead] = []
    static var _stateReadLimit: Int { 32 }

    /// One `state` read: the store, the generation it got (moved on once a
    /// tracking was told of a later one), and the look it began.
    struct _StateRead {
        let publication: _Publication
        var generation: UInt64
        let look: _Look
        let epoch: UInt64
    }

    init() {}

    /// The Observation state of `context`'s thread, installed at first use.
    ///
    /// - Complexity: O(1).
    @usableFromInline
    static func of(_ context: _TrackingContext) -> _ObservedThread {
        if let observer = context.readObserver {
            // NB: only this layer installs a read observer.
            return unsafeDowncast(observer as AnyObject, to: _ObservedThread.self)
        }
        let thread = _ObservedThread()
        context.readObserver = thread
        return thread
    }

    /// Files the read under this thread's look (see
    /// `_ObservationHub.access`).
    @usableFromInline
    func observeRead(_ node: NodeID, _ kind: _ReadKind) {
        _ObservationHub.shared.access(node, kind, self)
    }
}

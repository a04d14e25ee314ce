/// What a layer above the tracking installs on a thread's context to be
/// told of the versioned reads made there outside selectors and drains
/// (the Observation hub's per-thread state, `_ObservedThread`). The
/// tracking layer calls it and knows nothing else of it: the slot keeps the
/// tree layer (tracking, versioned values, collections) free of calls
/// upward.
@usableFromInline
internal protocol _ReadObserver: AnyObject {
    /// A versioned read of `kind` on `node`, made on this observer's
    /// thread while its context's `observesReads` is set.
    func observeRead(_ node: NodeID, _ kind: _ReadKind)
}

// A store's two halves of state: what its lock guards, and what only its
// draining thread touches.

/// The part of a store guarded by its lock.
@usableFromInline
internal struct _StoreGuarded<State, Action> {
    /// The published state; `nil` in an owned store, whose working copy is
    /// its published state.
    @usableFromInline var state: State?
    /// The queued actions and history moves (see `Store+Replacement.swift`).
    @usableFromInline var queue = _DispatchQueueState<Action, _StoreReplacement<State>>()
    @usableFromInline var subscribers: [_Subscriber<State>] = []
    @usableFromInline var nextSubscriberID: UInt64 = 0
    @inlinable init(state: State?) { self.state = state }
}

/// The part of a store only its draining thread touches.
@usableFromInline
internal struct _StoreDrainOwned<State, Action> {
    @usableFromInline var working: State
    @usableFromInline var batch: [Action] = []
    /// The batch just reduced, kept until its subscribers were told (the
    /// causes of its change); then emptied, keeping its capacity.
    @usableFromInline var reducedBatch: [Action] = []
    /// The actions of the batch being notified, copied only while receivers
    /// of causes are registered.
    @usableFromInline var causes: [Action]? = nil
    /// How many batches copied their actions (a test hook).
    @usableFromInline var causeCopies = 0
    /// A drain's changes the change log dropped and nobody holds, reused for
    /// the next drain's (see `_ChangeLog.publish`).
    @usableFromInline var spareChanges: _DrainChanges? = nil
    /// The last drain's changes, kept until the next drain to be reused
    /// when nothing else holds them (see `Store._keepForReuse(_:)`).
    @usableFromInline var recentChanges: _DrainChanges? = nil
    /// A history move to apply in place of the next batch.
    @usableFromInline var replacement: _StoreReplacement<State>? = nil
    /// Whether the reducer runs on `working` (an `inout` access in
    /// progress): an owned store's `state` cannot be read then. Between
    /// two actions of a batch (in middleware, or code it calls) it can: an
    /// owned store's state is then the batch's, reduced so far.
    @usableFromInline var reducing = false
    @inlinable init(working: State) {
        self.working = working
        batch.reserveCapacity(64)
        reducedBatch.reserveCapacity(64)
    }
}

import Atomics
import Observation
#if canImport(Dispatch)
import Dispatch
#endif

// The drain: reducing batches on the working copy, publishing them, telling
// Observation and the subscribers, and ending the drain.

extension Store {
    /// Reduces batches until the queue is empty. Runs on one thread at a
    /// time: the one whose `enqueue` returned `true`.
    ///
    /// Per batch, in named phases: **reduce** on the working copy
    /// (``_reducePhase(first:context:)``: journaled and **logged** in the
    /// change log when the state is versioned), **publish** under the lock
    /// (``_publishPhase()``), **tell Observation** (``_tellObservation(_:replaced:)``),
    /// **notify** the subscribers (``_notifyPhase(_:changes:first:context:)``),
    /// then take the next batch or end the drain under the lock (the queue's
    /// state machine, `_DispatchQueueState`). A history move takes the place
    /// of a batch's reduction (`Store+Replacement.swift`). With no
    /// subscribers the publish, the take and the end share one critical
    /// section, so a lone dispatch costs two lock round trips.
    ///
    /// - Parameter first: An action to reduce before anything queued (the
    ///   dispatching thread's own action, never queued), borrowed for the
    ///   first batch: never copied (an action with a payload would pay its
    ///   retains and releases), except for middleware and the receivers of
    ///   causes.
    @inlinable
    func _drain(first: Action) {
        _drain(hasFirst: true, reduceFirst: { _reduce(first) }, copyFirst: { first })
    }

    /// Reduces what is queued (see ``_drain(first:)``).
    @inlinable
    func _drain() {
        _drain(hasFirst: false, reduceFirst: {}, copyFirst: { fatalError("FastStore: internal error: no first action") })
    }

    /// The drain, with the first action lent through two closures that
    /// capture it by address: `reduceFirst` reduces it, `copyFirst` copies
    /// it (middleware, causes). `hasFirst` is `false` after the first batch.
    @inlinable
    func _drain(hasFirst: Bool, reduceFirst: () -> Void, copyFirst: () -> Action) {
        _TrackingContext._withCurrent {
            _drain(hasFirst: hasFirst, reduceFirst: reduceFirst, copyFirst: copyFirst, context: $0)
        }
    }

    /// The drain, on the calling thread's `context` (lent, not retained).
    @inlinable
    func _drain(hasFirst: Bool, reduceFirst: () -> Void, copyFirst: () -> Action, context: _TrackingContext) {
        var hasFirst = hasFirst
        let outerStore = context.drainingStore
        let outerObserves = context.observesReads
        let outerCalling = context.callingObserversOf
        // NB: a drain nested in another store's keeps that store on the
        // thread's stack of drains, for the checks of the calls that would
        // wait for it (`_TrackingContext.isDraining(_:)`).
        if let outerStore { context.outerDrainingStores.append(outerStore) }
        context.drainingStore = ObjectIdentifier(self)
        // NB: reducers, middleware and subscribers do not register
        // Observation accesses, whatever the thread read before, nor does
        // a drain started from an observer's `onChange` (which this drain's
        // own Observation phase marks again).
        context.observesReads = false
        context.callingObserversOf = nil
        defer {
            if outerStore != nil { context.outerDrainingStores.removeLast() }
            context.drainingStore = outerStore
            context.observesReads = outerObserves
            context.callingObserversOf = outerCalling
        }

        // NB: only the draining thread writes `_guarded.pointee.state`, so it
        // may read it without the lock. An owned store's working copy is
        // its published state already: no copy shares its nodes.
        if !_isOwned { _owned.pointee.working = _guarded.pointee.state.unsafelyUnwrapped }
        if !hasFirst && _owned.pointee.replacement == nil {
            // NB: through the queue's one take, which stops at a history
            // move queued meanwhile (another thread's, between the enqueue
            // that made this thread the drainer and this lock).
            _lock.lock()
            let took = _takeNext()
            _lock.unlock()
            _usagePrecondition(took, "FastStore: internal error: a drain started with nothing to reduce")
        }
        while true {
            var changes: _DrainChanges? = nil
            // NB: a nil check on the hot path; a history move is moved out of
            // the drain-owned part into `applied` while this thread still
            // owns it, and finished from there: once the drain ended (in
            // the publish or notify phase), the drain-owned part is the next
            // drainer's.
            var applied: _StoreReplacement<State>? = nil
            if _owned.pointee.replacement != nil {
                let replacement = _owned.pointee.replacement.unsafelyUnwrapped
                _owned.pointee.replacement = nil
                guard _applyReplacement(replacement, changes: &changes) else {
                    replacement.finish()
                    _lock.lock()
                    let finished = _takeNextBatchOrFinish()
                    _lock.unlock()
                    if let waiters = finished {
                        for waiter in waiters { waiter.resume() }
                        return
                    }
                    continue
                }
                applied = replacement
            } else {
                changes = _reducePhase(hasFirst: hasFirst, reduceFirst: reduceFirst, copyFirst: copyFirst, context: context)
            }
            // NB: `published` is not mutated, so its subscribers are lent
            // to the notify phase (a `var` made the call retain them).
            let published = _publishPhase()
            var replaced = published.replaced
            _tellObservation(changes, replaced: &replaced)
            let finished = published.takeLater
                ? _notifyPhase(
                    published.subscribers, changes: changes, hasFirst: hasFirst, copyFirst: copyFirst, context: context)
                : published.finished
            applied?.finish()
            if let waiters = finished {
                for waiter in waiters { waiter.resume() }
                return
            }
            hasFirst = false
            _owned.pointee.reducedBatch._removeAllKeepingCapacity()
        }
    }

    /// Reduce (and log): reduces one batch on the working copy, with the
    /// store's recycler installed; on versioned state under the write
    /// journal, its changes logged in the change log, where consumers find
    /// a drain's writes by the root stamp it produced, whichever way the
    /// state reaches them. Returns those changes (`nil` on plain state).
    @inlinable @inline(__always)
    func _reducePhase(
        hasFirst: Bool, reduceFirst: () -> Void, copyFirst: () -> Action, context: _TrackingContext
    ) -> _DrainChanges? {
        // NB: the recycler is installed for the reduction only, and settled
        // before the drain could end (see `_NodeRecycler`).
        let outerRecycler = context._recycler
        context._recycler = Unmanaged.passUnretained(_recycler)
        _recycler.begin()
        let changes = _journal.recordStep(
            oldRoot: _workingRootVersion(),
            newRoot: { _workingRootVersion().unsafelyUnwrapped },
            reusing: &_owned.pointee.spareChanges,
            log: _changeLog
        ) { _reduceBatch(hasFirst: hasFirst, reduceFirst: reduceFirst, copyFirst: copyFirst) }
        context._recycler = outerRecycler
        if let changes { _keepForReuse(changes) }
        // NB: the batch (with `first`) is set aside (a swap), not cleared,
        // until the subscribers were told: receivers of causes read it.
        _owned.pointee.setBatchAside()
        return changes
    }

    /// The root identity of the working copy (`nil` on plain state), read
    /// in place: a copy would be a retain and a release, and one held
    /// across the reduction would make the reducer copy the root.
    @inlinable @inline(__always)
    func _workingRootVersion() -> _RootVersion? {
        switch _rootLayout {
        case nil: return nil
        case .generic?:
            // NB: through the reader, which opened the type once.
            return _rootVersion.unsafelyUnwrapped(_owned.pointee.working)
        case let layout?:
            return withUnsafeMutablePointer(to: &_owned.pointee.working) { _RootVersion.read(UnsafePointer($0), layout: layout) }
        }
    }

    /// Keeps `changes`, this drain's, until the next drain, and makes the
    /// previous drain's the spare for the next one when nothing holds it
    /// any more. While the change log is not wanted (`_ChangeLog.wanted`)
    /// it hands back no dropped drain; a steady stream of drains then
    /// alternates two objects and their buffers instead of allocating. A
    /// logged drain is held by the log (never unique here) and comes back
    /// through the log once dropped.
    ///
    /// - Complexity: O(1).
    @inlinable @inline(__always)
    func _keepForReuse(_ changes: _DrainChanges) {
        // NB: the reference the slot keeps is made first, and moved into
        // it: made after the uniqueness check and swap (accesses to the
        // drain-owned part), it took a second retain and release.
        // NB: a bulk drain's writes (a buffer past 256, which `_reuse` would
        // not keep) are let go now rather than held until the next drain.
        let kept = changes.writes.capacity <= 256 ? changes : nil
        if _owned.pointee.spareChanges == nil && _owned.pointee.recentChanges != nil
            && isKnownUniquelyReferenced(&_owned.pointee.recentChanges) {
            // NB: the last other holder (a watcher on another thread)
            // released it: order its reads before this drain's writes.
            atomicMemoryFence(ordering: .acquiring)
            // NB: moved (a swap with the empty spare), not copied: no retain
            // and release of the object.
            swap(&_owned.pointee.spareChanges, &_owned.pointee.recentChanges)
        }
        _owned.pointee.recentChanges = kept
    }

    /// What the publish phase hands on: the subscribers to notify, the
    /// replaced state's Observation key, and whether the drain ended.
    @usableFromInline
    struct _Published {
        @usableFromInline var subscribers: [_Subscriber<State>]
        @usableFromInline var replaced: _Publication.Snapshot?
        /// Whether the next batch is taken after the notification (there
        /// are subscribers, or the recycler kept nodes to settle).
        @usableFromInline var takeLater: Bool
        /// The waiters to resume when the drain ended here.
        @usableFromInline var finished: [CheckedContinuation<Void, Never>]?

        @inlinable
        init(subscribers: [_Subscriber<State>], replaced: _Publication.Snapshot?, takeLater: Bool,
             finished: [CheckedContinuation<Void, Never>]?) {
            self.subscribers = subscribers
            self.replaced = replaced
            self.takeLater = takeLater
            self.finished = finished
        }
    }

    /// Publish: the working copy becomes the published state, under the
    /// lock, with the next generation and a snapshot of the subscribers;
    /// with nobody to notify and nothing to settle, the next batch is taken
    /// (or the drain ended) in the same critical section.
    @inlinable @inline(__always)
    func _publishPhase() -> _Published {
        // NB: Observation is told after the write (see `state` for why a
        // notification before it could miss a read).
        _willChange()
        var finished: [CheckedContinuation<Void, Never>]? = nil
        // NB: the replaced state is swapped out and released after the
        // lock: its values' `deinit`s may call the store. An owned store
        // publishes its working copy as it is.
        var replacedState: State? = _isOwned ? nil : _owned.pointee.working
        _lock.lock()
        if !_isOwned { swap(&_guarded.pointee.state, &replacedState) }
        // NB: under the lock, with the state: a reader gets a state and its
        // generation together.
        let generation = _publication.generation.wrappingIncrementThenLoad(ordering: .sequentiallyConsistent)
        let replaced = _publication.takeSnapshotKeyPath(generation &- 1)
        let subscribers = _guarded.pointee.subscribers
        // NB: the recycler is settled outside the lock (its emptied nodes'
        // values run their `deinit`s, which may call the store) and before
        // the drain can end (the drain owns it).
        let takeLater = !subscribers.isEmpty || _recycler.hasKept
        if !takeLater {
            finished = _takeNextBatchOrFinish()
        }
        _lock.unlock()
        replacedState = nil
        return _Published(subscribers: subscribers, replaced: replaced, takeLater: takeLater, finished: finished)
    }

    /// Tell Observation: on versioned state, the looks that read what the
    /// drain wrote, or every look of this store's state when the writes do
    /// not account for the step (the root was replaced); on plain state,
    /// the observers of the whole state.
    @inlinable @inline(__always)
    func _tellObservation(_ changes: _DrainChanges?, replaced: inout _Publication.Snapshot?) {
        if changes != nil {
            // NB: the changes are bound only when some look is live: a
            // binding is a retain and a release of them.
            let hub = _observationHub
            if hub.hasRegistrations, let changes {
                _callingObservers {
                    if changes.isChained {
                        hub.publish(changes.writes)
                    } else {
                        hub.publishReplacement(from: _publication)
                    }
                }
            }
        } else {
            _notifyWholeStateObservers(&replaced)
        }
    }

    /// Notify: the subscribers, in order (with the batch's actions when
    /// some receive causes); then settles the recycler and takes the next
    /// batch or ends the drain. Returns the waiters to resume when it
    /// ended.
    @inlinable @inline(__always)
    func _notifyPhase(
        _ subscribers: [_Subscriber<State>], changes: _DrainChanges?, hasFirst: Bool, copyFirst: () -> Action,
        context: _TrackingContext
    ) -> [CheckedContinuation<Void, Never>]? {
        if !subscribers.isEmpty {
            // NB: the wake-up hubs among the subscribers take the drain's
            // writes as an argument.
            if _causeReceivers.load(ordering: .acquiring) != 0 {
                _notifyWithCauses(subscribers, changes: changes, first: hasFirst ? copyFirst() : nil)
            } else {
                _notify(subscribers, _owned.pointee.working, changes: changes)
            }
        }
        // NB: after the subscribers let go of what they kept of the
        // replaced state.
        _recycler.settle()
        _lock.lock()
        let finished = _takeNextBatchOrFinish()
        _lock.unlock()
        return finished
    }

    /// Tells the observers of the whole `state` (see `state` for the order),
    /// and those of the state this publish replaced: `replaced`, its
    /// generation's key, when some tracked read registered it.
    ///
    /// A tracking that read the replaced state and had not installed its
    /// observers when they were told (Observation installs them when the
    /// tracked closure returns) still holds that key afterwards, as a told
    /// tracking lets it go: the key is then fired again, asynchronously
    /// (``_ObservationHub/_renotify(_:onMain:)``).
    @inlinable
    func _notifyWholeStateObservers(_ replaced: inout _Publication.Snapshot?) {
        if _readSincePublish.exchange(false, ordering: .sequentiallyConsistent) {
            _callingObservers {
                _registrar.willSet(self, keyPath: _stateKeyPath)
                _registrar.didSet(self, keyPath: _stateKeyPath)
            }
        }
        if replaced != nil { _callingObservers { _ObservationHub.shared._notifyReplaced(&replaced, of: _publication) } }
    }

    /// Under the lock: takes the next batch (the pending actions up to the
    /// first queued history move) or that history move. Returns `false`
    /// when nothing is queued.
    @inlinable
    func _takeNext() -> Bool {
        #if FASTSTORE_INTERNAL_CHECKS
        _guarded.pointee.queue._invariantCheck()
        #endif
        switch _guarded.pointee.queue.takeNext(into: &_owned.pointee.batch) {
        case .actions: return true
        case .marker(let replacement):
            _owned.pointee.replacement = replacement
            return true
        case .nothing: return false
        }
    }

    /// Under the lock: takes the next batch or history move (``_takeNext()``),
    /// or, when nothing is queued, ends the drain and returns the waiters to
    /// resume.
    @inlinable
    func _takeNextBatchOrFinish() -> [CheckedContinuation<Void, Never>]? {
        if _takeNext() { return nil }
        // NB: the drain-owned part is the next drainer's once the lock is
        // released: the reduced batch is emptied before.
        _owned.pointee.reducedBatch._removeAllKeepingCapacity()
        return _guarded.pointee.queue.finishIfIdle()!
    }

    /// Calls `subscribers` in order with `newState`, the wake-up hubs on
    /// the draining thread with `changes` too (the batch's writes, when
    /// they account for the step to `newState`).
    @inlinable
    func _notify(_ subscribers: [_Subscriber<State>], _ newState: State, changes: _DrainChanges?) {
        var sawGone = false
        // NB: each subscriber is read in place, unretained: the array (lent
        // by the drain, which holds it until the notify phase ends) holds
        // them, and each holds its hub (a retain and a release of both per
        // publish otherwise).
        subscribers.withUnsafeBufferPointer { list in
            for k in list.indices {
                Unmanaged.passUnretained(list[k])._withUnsafeGuaranteedRef { subscriber in
                    guard !subscriber.cancelled.load(ordering: .acquiring) else { return }
                    switch subscriber.thread {
                    case .drainThread:
                        if let owner = subscriber._unretainedWakeUps {
                            owner._withUnsafeGuaranteedRef { $0.deliver(newState, drained: changes) }
                        } else if !subscriber.deliver(newState) {
                            sawGone = true
                        }
                    case .main:
                        _deliverOnMain(subscriber, newState)
                    }
                }
            }
        }
        if sawGone { _removeGoneSubscribers() }
    }
}

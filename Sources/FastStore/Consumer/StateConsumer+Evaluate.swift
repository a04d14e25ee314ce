import Atomics

// A consume's evaluations: each planned consumer's selector run and its
// callback told, and the counters they add to.

extension StateConsumer {
    /// Evaluates and delivers each of `handles` in order, unretained: the
    /// array holds them (a consumer removed meanwhile leaves the registry's
    /// array, which is copied on write, not this one).
    ///
    /// NB: iterating the array retained and released every handle: two
    /// atomic operations per consumer evaluated, which on plain state (every
    /// consumer evaluated at every consume) is most of the consumer's cost
    /// after its selector and comparison.
    @inlinable @inline(__always)
    internal func _evaluateAndDeliverAll(_ handles: [ConsumerHandle<State>], _ state: State) {
        handles.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let refs = UnsafeRawPointer(base).assumingMemoryBound(to: Unmanaged<ConsumerHandle<State>>.self)
            for k in 0 ..< buffer.count {
                refs[k]._withUnsafeGuaranteedRef { _evaluateAndDeliver($0, state) }
            }
        }
    }

    /// Evaluates one consumer, updates its dependencies and calls it if its
    /// selection changed. Holds the consuming turn, not the lock.
    // NB: always inlined into the consume loop: outlined, it cost the plain
    // path (every consumer evaluated) about 20 instructions per consumer.
    @inlinable @inline(__always)
    internal func _evaluateAndDeliver(_ handle: ConsumerHandle<State>, _ state: State) {
        // NB: a consumer removed since the turn last looked (by a callback
        // of this consume, or by another thread) is skipped; with no
        // removal since, no lock is needed to know it is still there.
        if _removals.load(ordering: .acquiring) != _turn.removalsSeen {
            let removed = _lock.withLock {
                _turn.removalsSeen = _removals.load(ordering: .relaxed)
                return handle.isRemoved
            }
            if removed { return }
        }
        let recorder = _rootReader == nil ? nil : _turn.recorder
        recorder?.dependencies._removeAllKeepingCapacity()
        handle.evaluationCount &+= 1
        _turn.evaluations &+= 1
        handle.run(handle, state, recorder) { mustRunAlways, changed in
            _lock.lock()
            defer { _lock.unlock() }
            if let recorder, !handle.isRemoved {
                _guarded.registry.updateDependencies(
                    handle, recorded: recorder.dependencies, unconditional: mustRunAlways)
            }
            return changed && !handle.isRemoved
        }
    }

    /// Adds the evaluations counted by the turn to the statistics. Must
    /// hold the lock and the turn.
    @inlinable
    internal func _flushEvaluations() {
        _guarded.stats.evaluations += _turn.evaluations
        _turn.evaluations = 0
    }

    #if FASTSTORE_INTERNAL_CHECKS
    /// Says, once per consumer, that a consume of versioned state had to
    /// evaluate every selector. Must hold the lock.
    @usableFromInline
    internal func _diagnoseSlowPath(lastRoot: _RootVersion, newRoot: _RootVersion) {
        guard !_guarded.diagnosedSlowPath else { return }
        _guarded.diagnosedSlowPath = true
        let reason = lastRoot.node != newRoot.node
            ? "the new state is another root node (built elsewhere, or a wholesale replacement)"
            : "no logged store drains lead from the last consumed state to this one (a state mutated outside a store, an earlier version, or a wholesale replacement)"
        _Diagnostics.note("StateConsumer<\(State.self)>: evaluating every selector: \(reason). Correct, but O(consumers).")
    }
    #endif
}

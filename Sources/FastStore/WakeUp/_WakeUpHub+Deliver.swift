import Atomics

// The wake-up hub's delivery of a publish: whom it wakes, and how.

extension _WakeUpHub {
    // MARK: Delivering

    /// Appends to `candidates` the readers a write of `kind` to `node`
    /// affects, looked up in the index only when the filter says the
    /// write may affect one. Must hold the lock.
    ///
    /// - Complexity: O(1) for a write the filter rules out; else
    ///   ``_ReaderIndex/collect(_:_:into:)``'s.
    @inlinable @inline(__always)
    func _collect(_ node: NodeID, _ kind: _WriteKind) {
        guard index.mayAffectSomeNode(kind), filter.mayAffect(node, kind) else { return }
        index.collect(node, kind, into: &candidates)
    }

    /// Tells the consumers whose reads the drains from the last delivered
    /// state to `state` wrote (every consumer when the writes do not
    /// account for the step).
    ///
    /// - Parameter changes: The changes of the drain that published
    ///   `state`, when the drain calls the hub itself (on the draining
    ///   thread); used when they are the step from the hub's last root to
    ///   `state`'s, else the change log is read.
    /// - Complexity: O(writes + woken consumers × their consume).
    @inlinable
    func deliver(_ state: Root, drained changes: _DrainChanges? = nil) {
        let newRoot = rootReader(state)
        let oldRoot = lastRoot
        lastRoot = newRoot
        // NB: a delivery from the drain that made the step takes its writes
        // as the drain hands them; a later one (the main queue, which
        // coalesces) reads the change log, with no hub lock held.
        // NB: the drain's own changes are read in place, and handed to the
        // woken consumers unretained (`_HubProof.drain`).
        var journaled = false
        // NB: unretained: the drain holds its changes while it delivers.
        var drained: Unmanaged<_DrainChanges>? = nil
        if oldRoot != newRoot {
            if let changes, changes.isChained, changes.oldRoot == oldRoot, changes.newRoot == newRoot {
                drained = Unmanaged.passUnretained(changes)
            }
            if drained != nil {
                journaled = true
            } else {
                journaled = _ChangeLog.spans(from: oldRoot, to: newRoot, into: &spans, cached: &changeLog)
            }
        }

        lock.lock()
        candidates._removeAllKeepingCapacity()
        if oldRoot == newRoot {
            if !always.isEmpty { for slot in always { candidates.append(slot) } }
        } else if journaled {
            if let drained {
                drained._withUnsafeGuaranteedRef { changes in
                    for write in changes.writes { _collect(write.node, write.kind) }
                }
            } else {
                for span in spans {
                    for write in span.writes { _collect(write.node, write.kind) }
                }
            }
            if !always.isEmpty { for slot in always { candidates.append(slot) } }
        } else {
            for slot in entries.indices where entries[slot] != nil { candidates.append(slot) }
        }
        var gone: [Int]? = nil
        _ReaderIndex.forEachDistinct(&candidates) { slot in
            guard let entry = entries[slot] else { return }
            if let consumer = entry.consumer {
                // NB: with journaled writes, an entry told of every
                // publish may be planned for that alone; any other was
                // collected from the index.
                plan.append(Wake(
                    slot: slot, attachment: entry.attachment, consumer: consumer, wasUnsynced: entry.unsynced,
                    matched: journaled && !entry.isAlways))
            } else {
                // NB: made only when a consumer went: a delivery that
                // finds none releases no array.
                if gone == nil { gone = [] }
                gone!.append(slot)
            }
        }
        // NB: the slots in `gone` stay valid until every one is dropped;
        // renumbering comes after (the planned wakes carry their
        // attachment, which `_settle` checks).
        if let gone {
            for slot in gone {
                if let entry = entries[slot] {
                    slots[entry.attachment] = nil
                    _dropKeepingSlots(slot, entry)
                }
            }
            _compactIfSparse()
        }
        lock.unlock()

        if plan.isEmpty {
            if !spans.isEmpty { spans._removeAllKeepingCapacity() }
            return
        }
        let hub = ObjectIdentifier(self)
        // NB: the plan is moved out for the loop (a swap, no copy): a
        // delivery nested in a consumer's callback (none can be today: a
        // hub is delivered by its store's drain, which queues the
        // dispatches made inside it) would plan into an empty array and
        // release only its own wakes, not the ones this loop still calls.
        var wakes: [Wake] = []
        swap(&wakes, &plan)
        // NB: `proof` shares `spans`' buffer until the block ends, before
        // `spans` is emptied in place (shared, emptying it would copy).
        do {
            let proof: _HubProof? = !journaled ? nil : drained.map { .drain($0) } ?? .spans(spans)
            wakes.withUnsafeBufferPointer { planned in
                for k in planned.indices {
                    #if FASTSTORE_INTERNAL_CHECKS
                    if _wakeUpDropped() { continue }
                    #endif
                    let anchored = Unmanaged.passUnretained(planned[k].consumer)._withUnsafeGuaranteedRef {
                        $0._consumeFromHub(state, hub: hub, from: oldRoot, proof: proof, matched: planned[k].matched)
                    }
                    if !anchored || planned[k].wasUnsynced { _settle(planned[k]) }
                }
            }
        }
        // NB: the consumers are let go with no lock held (a consumer's
        // last release runs its callbacks' captures' `deinit`s).
        wakes._removeAllKeepingCapacity()
        swap(&wakes, &plan)
        if !spans.isEmpty { spans._removeAllKeepingCapacity() }
    }
}

// The wake-up hub's mirror of its consumers' reads: re-read after a
// consumer's registry changed, and whether each is anchored (see
// `_WakeUpHub`, "The mirrored reads").

extension _WakeUpHub {
    /// Re-reads, from `consumer`, whether it reads each of `noted` (every
    /// mirrored dependency too with `everything`), and whether it needs
    /// every publish.
    ///
    /// - Complexity: O(noted), O(mirrored dependencies) with `everything`.
    @usableFromInline
    func refresh(_ attachment: UInt64, _ consumer: StateConsumer<Root>, noted: [_Dependency], everything: Bool) {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = slots[attachment], let entry = entries[slot] else { return }
        consumer._lock.lock()
        if everything {
            for dependency in entry.dependencies where !consumer._guarded.registry.index.hasReaders(dependency) {
                entry.dependencies.remove(dependency)
                index.remove(dependency, reader: slot)
            }
        }
        var filed: [_Dependency]? = nil
        for dependency in noted {
            let reads = consumer._guarded.registry.index.hasReaders(dependency)
            if reads, entry.dependencies.insert(dependency).inserted {
                index.insert(dependency, reader: slot)
                if filed == nil { filed = [] }
                filed!.append(dependency)
            } else if !reads, entry.dependencies.remove(dependency) != nil {
                index.remove(dependency, reader: slot)
            }
        }
        entry.needsAll = consumer._needsEveryPublish
        consumer._lock.unlock()
        // NB: filed after the consumer's lock (a rebuild reads the whole
        // index), before the hub's: no delivery probes in between.
        if let filed { for dependency in filed { filter.insert(dependency, rebuildingFrom: index) } }
        _file(slot, entry)
    }

    /// Marks the consumer of `attachment` as not anchored: it consumed
    /// something this hub did not deliver.
    @usableFromInline
    func markUnsynced(_ attachment: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        guard let slot = slots[attachment], let entry = entries[slot], !entry.unsynced else { return }
        entry.unsynced = true
        _file(slot, entry)
    }

    /// Stores `entry` at `slot`, with its `always` membership. Must hold
    /// the lock.
    func _file(_ slot: Int, _ entry: Entry) {
        if entry.isAlways { always.insert(slot) } else { always.remove(slot) }
    }

    /// After a wake: whether the consumer is anchored at the hub's root
    /// (and no consume of it is queued or running), read under both locks
    /// so that no concurrent consume can slip between the check and the
    /// mark.
    @usableFromInline
    func _settle(_ wake: Wake) {
        lock.lock()
        defer { lock.unlock() }
        guard slots[wake.attachment] == wake.slot, let entry = entries[wake.slot] else { return }
        let consumer = wake.consumer
        let anchored = consumer._lock.withLock { consumer._isAnchored(at: ObjectIdentifier(self), root: lastRoot) }
        guard entry.unsynced == anchored else { return }
        entry.unsynced = !anchored
        _file(wake.slot, entry)
    }
}

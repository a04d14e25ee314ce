import Atomics

/// The one place that decides which connected consumers of a store are told
/// of a publish: a reader index over every connected ``StateConsumer``'s
/// reads, fed by the drains' writes.
///
/// One hub per store and notification thread (``_StoreHubTable/wakeUps``), which
/// is the store's only subscriber for all the consumers connected through
/// it (``StateConsumer/connect(to:on:)`` on versioned state). Each publish
/// the hub takes the drain's writes (handed by the drain as an argument
/// when it delivers on the draining thread, ``Store/_notify(_:_:changes:)``,
/// else read from the change log, as a main-queue delivery that coalesced
/// several drains does), collects the consumers whose
/// reads they affect with the trigger rule (``_ReaderIndex/collect(_:_:into:)``,
/// the rule every consumer applies to its own selectors; a write the hub's
/// ``_ReadFilter`` rules out is not looked up), and calls those only,
/// handing them the writes. The others are not touched: a publish
/// costs O(writes + woken consumers), whatever the number connected.
///
/// ## What a skipped consumer relies on
/// A consumer that is not woken keeps its last consumed root. When it is
/// woken later, the hub hands it the writes from the hub's previous root
/// only: the steps between were checked against its reads and wrote none
/// of them, so its selections still hold. That proof is good only while
/// the consumer is *anchored*: its last consume was one from this hub and
/// nothing else consumed since (``_HubAnchor``), its reads as mirrored here
/// are current, and no consume of it is queued. Every other case wakes it
/// at every publish (``Entry/unsynced``, ``Entry/needsAll``), and it
/// consumes through its own general path (the change log from its own last
/// root, or comparing everything), until it is anchored again:
/// - just connected (its first consume is the store's current state, read
///   by `connect`);
/// - its consume was queued behind another thread's (its reads may change
///   before it runs);
/// - it consumed something else (another store, `consume(newState:)`);
/// - it has unconditional selectors (never evaluated yet, or reading
///   nothing the tracking sees), or keeps the last state for
///   ``StateConsumer/consumeInstantly`` (a skipped drain would leave that
///   state behind).
///
/// ## The mirrored reads
/// The consumer notes which of its dependencies changed
/// (``_HubNotices``) and has the hub re-read them after each consume,
/// `add`, `remove` and `removeAll`, outside its own lock: the hub takes its
/// lock, then the consumer's, and copies the truth (whether the consumer
/// has a reader of that dependency now). So notices applied in any order
/// leave the mirror equal to the consumer's index.
///
/// Lock order: the table's, then a hub's, then a consumer's. Consumers are
/// called with no hub lock held.
@usableFromInline
internal final class _WakeUpHub<Root>: @unchecked Sendable {
    // NB: `@unchecked Sendable`: the guarded fields are touched under
    // `lock`; the delivery scratch only by `deliver`, which the store calls
    // serially (one drain at a time, or the main queue).

    /// One connected consumer.
    ///
    /// NB: a class, so that planning a wake reads its consumer in place
    /// rather than copying the entry (its set and closure) out of the
    /// array. Touched under the hub's lock only.
    @usableFromInline
    final class Entry {
        // NB: unchecked exclusivity, as every field of an entry: touched
        // under the hub's lock (the dynamic check was about 75
        // instructions of each delivery that woke a consumer), except
        // `detach`'s read of an entry it already removed, which no other
        // thread reaches; the weak reference is never written after
        // `init`.
        @exclusivity(unchecked) @usableFromInline weak var consumer: StateConsumer<Root>?
        @usableFromInline let attachment: UInt64
        /// The consumer's dependencies, as filed in `index` under its slot.
        @exclusivity(unchecked) @usableFromInline var dependencies: Set<_Dependency> = []
        /// Whether it has unconditional selectors or keeps its last state:
        /// told of every publish.
        @exclusivity(unchecked) @usableFromInline var needsAll = false
        /// Whether the proof a skipped consumer relies on does not hold:
        /// told of every publish until it is anchored again.
        @exclusivity(unchecked) @usableFromInline var unsynced = true
        /// Called when the store is deallocated (a sequence finishes).
        @usableFromInline let onStoreGone: (() -> Void)?
        @usableFromInline var isAlways: Bool { needsAll || unsynced }

        init(consumer: StateConsumer<Root>, attachment: UInt64, onStoreGone: (() -> Void)?) {
            self.consumer = consumer
            self.attachment = attachment
            self.onStoreGone = onStoreGone
        }
    }

    /// A consumer to call, as planned under the lock.
    @usableFromInline
    struct Wake {
        @usableFromInline let slot: Int
        @usableFromInline let attachment: UInt64
        /// Held from the plan until the delivery is over: the strong
        /// reference the entry's weak load made, moved into the plan.
        // NB: a consumer is held weakly by its entry, so its object has a
        // side table, and each retain or release of it takes the runtime's
        // slow path: the plan keeps the weak load's reference rather than
        // retaining it again, and the delivery reads it in place.
        @usableFromInline let consumer: StateConsumer<Root>
        @usableFromInline let wasUnsynced: Bool
        /// Whether a write affecting a read mirrored for the consumer woke
        /// it (not only its being told of every publish).
        @usableFromInline let matched: Bool
        @inlinable init(
            slot: Int, attachment: UInt64, consumer: __owned StateConsumer<Root>, wasUnsynced: Bool, matched: Bool
        ) {
            self.slot = slot
            self.attachment = attachment
            self.consumer = consumer
            self.wasUnsynced = wasUnsynced
            self.matched = matched
        }
    }

    let key: _StoreHubTable.Key
    @usableFromInline let rootReader: (Root) -> _RootVersion
    /// Ends the hub's store subscription (set once, when it is made).
    var unsubscribe: (() -> Void)?

    @usableFromInline let lock = _Lock()
    // Guarded by `lock`:
    @exclusivity(unchecked) @usableFromInline var entries: [Entry?] = []
    @exclusivity(unchecked) @usableFromInline var deadEntries = 0
    @exclusivity(unchecked) @usableFromInline var slots: [UInt64: Int] = [:]
    @exclusivity(unchecked) @usableFromInline var index = _ReaderIndex()
    /// What `index` holds, summed up: a delivery looks up only the writes
    /// it may find readers of (see `_ReadFilter`).
    @usableFromInline let filter = _ReadFilter()
    /// Slots told of every publish (`Entry.isAlways`).
    @exclusivity(unchecked) @usableFromInline var always: Set<Int> = []
    private var nextAttachment: UInt64 = 0
    /// The root of the last state delivered (what the next delivery's
    /// writes start from). Owned by `deliver` (set before the hub
    /// subscribes, then by each delivery; `_settle` reads it from there).
    @exclusivity(unchecked) @usableFromInline var lastRoot: _RootVersion

    // Owned by `deliver`:
    @exclusivity(unchecked) @usableFromInline var spans: [_DrainChanges] = []
    /// The change log of the store whose states this hub delivers, once a
    /// delivery found it.
    @exclusivity(unchecked) @usableFromInline var changeLog: _ChangeLog?
    @exclusivity(unchecked) @usableFromInline var candidates: [Int] = []
    @exclusivity(unchecked) @usableFromInline var plan: [Wake] = []

    init(key: _StoreHubTable.Key, rootReader: @escaping (Root) -> _RootVersion, root: _RootVersion) {
        self.key = key
        self.rootReader = rootReader
        self.lastRoot = root
    }

    deinit {
        unsubscribe?()
        _StoreHubTable.wakeUps.forget(key)
    }

    /// Whether the hub cancelled its store subscription when its last
    /// connection went (``detach(_:)``): it connects nobody after that.
    @usableFromInline var retired = false

    /// The number of consumers connected (for tests).
    var connectedCount: Int { lock.withLock { slots.count } }

    // MARK: Connecting

    /// The hub of `store` for deliveries on `thread`, made and subscribed
    /// to the store on first use.
    ///
    /// - Parameter deliverer: The store subscriber of a new hub, made by
    ///   the caller (`@inlinable` code) so that the delivery path is
    ///   specialized for the state type; it returns `true` (a hub's
    ///   subscription is ended by the hub, never by its delivery).
    /// - Complexity: O(1) expected (a locked table lookup).
    @usableFromInline
    static func hub<Action>(
        for store: Store<Root, Action>, on thread: NotificationThread,
        deliverer: (_HubOwner<Root>) -> (Root) -> Bool
    ) -> _WakeUpHub<Root> {
        let hub = _StoreHubTable.wakeUps.hub(for: store, on: thread) { key in
            // NB: the root the hub starts from is read before it subscribes:
            // a drain published in between is among the writes of its first
            // delivery (the change log spans several drains).
            let hub = _WakeUpHub<Root>(
                key: key, rootReader: store._rootVersion!, root: store._rootVersion!(store._unobservedState))
            // NB: a main-queue hub coalesces drains and reads their writes
            // from the store's change log, which logs them from now on (see
            // `_ChangeLog.wanted`); a hub on the draining thread takes them
            // from the drain.
            if thread == .main { store._changeLog._markWanted() }
            let target = _HubOwner(hub)
            // NB: the hub does not hold its subscriber entry, so that the
            // store is the only owner of the closure: when the store goes,
            // the closure and `target` go with it, and `target` tells the
            // hub. The caller's closure is the entry's, not wrapped: one
            // indirect call per publish, on the hub `target` holds.
            // NB: a hub on the draining thread is called by the drain
            // directly, with the drain's changes (`Store._notify`); the
            // closure serves the main queue's coalesced deliveries.
            let entry = store._addSubscriber(
                thread: thread, object: nil, wakeUps: thread == .drainThread ? target : nil, deliver: deliverer(target))!
            // NB: the entry's flag and id, not the entry: a weak reference
            // would give the entry a side table, which every retain and
            // release of it (each notification) then goes through.
            let id = entry.id
            let cancelled = entry.cancelled
            let weakStore = _UncheckedWeak(store)
            hub.unsubscribe = {
                cancelled.store(true, ordering: .releasing)
                weakStore.object?._removeSubscriber(id: id)
            }
            return hub
        }
        // NB: the same store object has the same `Root`.
        return unsafeDowncast(hub, to: _WakeUpHub<Root>.self)
    }

    /// Connects `consumer`: it is told of every publish until it is
    /// anchored, and its current dependencies are mirrored.
    ///
    /// - Returns: The attachment, which names the connection; `nil` when
    ///   the hub retired meanwhile (its last connection went after the
    ///   table handed it out): the caller asks the table again.
    /// - Complexity: O(the consumer's dependencies).
    @usableFromInline
    func attach(_ consumer: StateConsumer<Root>, onStoreGone: (() -> Void)? = nil) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        if retired { return nil }
        nextAttachment &+= 1
        let attachment = nextAttachment
        let slot = entries.count
        let entry = Entry(consumer: consumer, attachment: attachment, onStoreGone: onStoreGone)
        consumer._lock.lock()
        consumer._guarded.registry.hubNotices.isTracking = true
        consumer._guarded.hubLinks.append(_HubLink(hub: self, attachment: attachment))
        consumer._guarded.registry.index.forEachDependency { dependency in
            entry.dependencies.insert(dependency)
            index.insert(dependency, reader: slot)
        }
        entry.needsAll = consumer._needsEveryPublish
        consumer._lock.unlock()
        // NB: filed after the consumer's lock (a rebuild reads the whole
        // index), before the hub's: no delivery probes in between.
        for dependency in entry.dependencies { filter.insert(dependency, rebuildingFrom: index) }
        entries.append(entry)
        slots[attachment] = slot
        always.insert(slot)
        return attachment
    }

    /// The token of the connection `attachment`: cancelling or releasing
    /// it disconnects. It holds the hub: a hub lives while a consumer is
    /// connected through it.
    @usableFromInline
    func subscription(for attachment: UInt64) -> StoreSubscription {
        StoreSubscription { [self] in detach(attachment) }
    }

    /// Disconnects the consumer of `attachment` (nothing if it is gone).
    ///
    /// - Complexity: O(its dependencies), amortized.
    @usableFromInline
    func detach(_ attachment: UInt64) {
        lock.lock()
        guard let slot = slots.removeValue(forKey: attachment), let entry = entries[slot] else {
            // NB: a consumer that went without disconnecting was dropped at
            // a delivery; its token's release may still leave nobody.
            let unused = slots.isEmpty
            lock.unlock()
            if unused { _retireIfUnused() }
            return
        }
        _drop(slot, entry)
        let wasLast = slots.isEmpty
        lock.unlock()
        // NB: after the hub's lock: a consumer's lock is never taken inside
        // it except to read the consumer.
        if let consumer = entry.consumer {
            consumer._lock.withLock {
                consumer._guarded.hubLinks.removeAll { $0.attachment == attachment && $0.hub === self }
                if consumer._guarded.hubLinks.isEmpty {
                    consumer._guarded.registry.hubNotices = _HubNotices()
                }
            }
        }
        if wasLast { _retireIfUnused() }
    }

    /// Cancels the hub's store subscription when nobody is connected: the
    /// store's subscriber holds the hub (``_HubOwner``), so a hub nobody
    /// uses would otherwise stay subscribed, and be delivered to, until
    /// its store goes.
    ///
    /// Under the table's lock, then the hub's (the lock order): the table
    /// forgets the hub in the same critical section that finds it unused,
    /// so a connect either found it before (its `attach` then sees
    /// `retired` and asks the table again) or gets a new hub.
    @usableFromInline
    func _retireIfUnused() {
        let retiring = _StoreHubTable.wakeUps.remove(key, hub: self) {
            lock.lock()
            defer { lock.unlock() }
            guard !retired, slots.isEmpty else { return false }
            retired = true
            return true
        }
        guard retiring else { return }
        // NB: the store lets go of its subscriber entry, and with it of this
        // hub; `deinit` must not cancel it again.
        let cancel = unsubscribe
        unsubscribe = nil
        cancel?()
    }

    /// Removes the entry at `slot`. Must hold the lock.
    @usableFromInline
    func _drop(_ slot: Int, _ entry: Entry) {
        _dropKeepingSlots(slot, entry)
        _compactIfSparse()
    }

    /// Removes the entry at `slot` without renumbering the others (other
    /// slots the caller holds stay valid). Must hold the lock.
    @usableFromInline
    func _dropKeepingSlots(_ slot: Int, _ entry: Entry) {
        for dependency in entry.dependencies { index.remove(dependency, reader: slot) }
        always.remove(slot)
        entries[slot] = nil
        deadEntries += 1
    }

    /// Renumbers the entries when more than half are gone. Must hold the
    /// lock; invalidates every slot the caller holds.
    @usableFromInline
    func _compactIfSparse() {
        if deadEntries > 16, deadEntries * 2 > entries.count { _compact() }
    }

    /// Renumbers the live entries by their order, re-filing their
    /// dependencies. Must hold the lock.
    ///
    /// - Complexity: O(entries + their dependencies); run when more than
    ///   half are gone, so O(1) amortized per disconnection.
    private func _compact() {
        var live: [Entry?] = []
        live.reserveCapacity(entries.count - deadEntries)
        var renumbered = _ReaderIndex()
        var stillAlways: Set<Int> = []
        for case let entry? in entries {
            let slot = live.count
            for dependency in entry.dependencies { renumbered.insert(dependency, reader: slot) }
            if entry.isAlways { stillAlways.insert(slot) }
            slots[entry.attachment] = slot
            live.append(entry)
        }
        entries = live
        deadEntries = 0
        index = renumbered
        always = stillAlways
    }

    /// The store went: calls the connections' `onStoreGone`.
    func storeDidGo() {
        lock.lock()
        let hooks = entries.compactMap { $0?.onStoreGone }
        lock.unlock()
        for hook in hooks { hook() }
    }
}

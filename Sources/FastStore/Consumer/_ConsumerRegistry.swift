import CFastStore

/// The consumers of a ``StateConsumer`` and what they depend on: a plain
/// struct, guarded by the consumer's lock.
@usableFromInline
internal struct _ConsumerRegistry<State> {
    /// Every consumer in registration order, each at its id
    /// (`ordered[handle.id] === handle`); removed ones stay until
    /// compaction, which renumbers the rest.
    ///
    /// NB: ids are positions rather than keys of a table: no table (about
    /// 26 bytes per consumer), and a lookup by id is an array read.
    @usableFromInline var ordered: [ConsumerHandle<State>] = []
    @usableFromInline var removedInOrdered = 0
    /// Node → consumers that read it, by kind.
    @usableFromInline var index = _ReaderIndex()
    /// Consumers with no versioned dependency: never evaluated yet, a
    /// selector that reads nothing versioned, or a selection the tracking
    /// cannot see through. Evaluated at every consume.
    @usableFromInline var unconditional: Set<_IDKey> = []
    /// This registry's number (each `StateConsumer`'s registry, and the
    /// one `removeAll` starts, has its own), stamped on its handles.
    @usableFromInline let number: UInt32
    /// What changed in this registry since the wake-up hubs the consumer is
    /// connected through last looked (see ``_HubNotices``); kept only while
    /// it is connected through one.
    @usableFromInline var hubNotices = _HubNotices()

    @inlinable init() { number = _cfaststore_registries_take() }

    /// The number of live consumers.
    @inlinable var count: Int { ordered.count &- removedInOrdered }

    /// Registers a consumer built by `make` with a fresh id; it is
    /// unconditional until its first evaluation.
    @inlinable
    mutating func register(_ make: (Int) -> ConsumerHandle<State>) -> ConsumerHandle<State> {
        // NB: a handle keeps its id in 32 bits.
        // NB: compared as 64-bit: `Int(UInt32.max)` traps where `Int` is 32 bits.
        precondition(UInt64(ordered.count) < UInt64(UInt32.max),
                     "FastStore: a StateConsumer holds at most 4,294,967,295 consumers, removed ones included until it compacts")
        let handle = make(ordered.count)
        handle.registry = number
        ordered.append(handle)
        unconditional.insert(_IDKey(handle.id))
        hubNotices.noteUnconditional()
        return handle
    }

    /// Takes `id` out of the unconditional consumers.
    ///
    /// Every consumer starts unconditional, so adding many (10,000 row
    /// screens) sizes that set for all of them, and their first evaluations
    /// leave it nearly empty: its table is given back once it holds under
    /// an eighth of its capacity (13 bytes per consumer otherwise).
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func _removeUnconditional(_ id: Int) {
        unconditional.remove(_IDKey(id))
        if unconditional.capacity > 64, unconditional.count &* 8 < unconditional.capacity {
            // NB: not `Set(unconditional)`, which shares the old table.
            var smaller = Set<_IDKey>(minimumCapacity: unconditional.count)
            for other in unconditional { smaller.insert(other) }
            unconditional = smaller
        }
    }

    /// Whether `handle` is registered here (and not removed).
    @inlinable
    func contains(_ handle: ConsumerHandle<State>) -> Bool {
        // NB: another registry's handle is told by its number: its `id` is
        // guarded by its own consumer's lock, not this one's. (Numbers wrap
        // after 2^32 registries; the identity check below still holds.)
        handle.registry == number && handle.id < ordered.count && ordered[handle.id] === handle
            && !handle.isRemoved
    }

    /// Unregisters `handle`.
    ///
    /// - Complexity: O(its dependencies), amortized.
    @inlinable
    mutating func remove(_ handle: ConsumerHandle<State>) {
        guard contains(handle) else { return }
        handle.isRemoved = true
        _removeUnconditional(handle.id)
        hubNotices.noteUnconditional()
        for dependency in handle.dependencies {
            index.remove(dependency, reader: handle.id)
            hubNotices.note(dependency)
        }
        handle.dependencies.removeAll()
        removedInOrdered += 1
        if removedInOrdered > 16, removedInOrdered * 2 > ordered.count { _compact() }
    }

    /// Drops the removed consumers from `ordered` and renumbers the others
    /// by their new positions, in the same order, re-filing their
    /// dependencies (the reader index and the unconditional set hold ids).
    ///
    /// - Complexity: O(consumers + their dependencies); run when more than
    ///   half the consumers are removed, so O(1) amortized per removal, as
    ///   many dependencies as the removed consumers had.
    @inlinable
    mutating func _compact() {
        var live: [ConsumerHandle<State>] = []
        live.reserveCapacity(ordered.count &- removedInOrdered)
        for handle in ordered where !handle.isRemoved { live.append(handle) }
        var renumbered = _ReaderIndex()
        var stillUnconditional = Set<_IDKey>(minimumCapacity: unconditional.count)
        for (position, handle) in live.enumerated() {
            handle.id = position
            if handle.dependencies.isEmpty {
                stillUnconditional.insert(_IDKey(position))
            } else {
                for dependency in handle.dependencies { renumbered.insert(dependency, reader: position) }
            }
        }
        ordered = live
        removedInOrdered = 0
        index = renumbered
        unconditional = stillUnconditional
    }

    /// Unregisters every consumer.
    @inlinable
    mutating func removeAll() {
        for handle in ordered where !handle.isRemoved {
            handle.isRemoved = true
            handle.dependencies.removeAll()
        }
        var notices = hubNotices
        notices.noteEverything()
        self = _ConsumerRegistry()
        hubNotices = notices
    }

    /// Appends every live consumer, in registration order.
    @inlinable
    func planAll(into plan: inout [ConsumerHandle<State>]) {
        for handle in ordered where !handle.isRemoved { plan.append(handle) }
    }

    /// Every live consumer in registration order, as `ordered` itself when
    /// no removed consumer awaits compaction (`nil` otherwise): O(1), the
    /// caller shares the buffer, which a later registration or compaction
    /// copies on write.
    @inlinable
    var allIfCompact: [ConsumerHandle<State>]? { removedInOrdered == 0 ? ordered : nil }

    /// Appends the consumers the writes of `spans` affect (per the trigger
    /// rule of ``_ReaderIndex/collect(_:_:into:)``), plus the unconditional
    /// ones, in registration order, each once.
    @inlinable
    // NB: `mutating` though it writes nothing: called on the registry in
    // place, where a non-mutating call on a struct stored in a class may
    // copy it (retaining its tables) for the call.
    mutating func planAffected(by spans: [_DrainChanges], candidates: inout [Int], into plan: inout [ConsumerHandle<State>]) {
        candidates._removeAllKeepingCapacity()
        for span in spans {
            for write in span.writes { index.collect(write.node, write.kind, into: &candidates) }
        }
        // NB: a loop, not `append(contentsOf:)`, which costs a hundred
        // instructions even for an empty set.
        if !unconditional.isEmpty {
            for key in unconditional { candidates.append(key.id) }
        }
        if candidates.isEmpty { return }
        // NB: the index and the unconditional set hold live consumers only.
        _ReaderIndex.forEachDistinct(&candidates) { plan.append(ordered[$0]) }
    }

    /// Replaces the dependencies `handle` is indexed under with the reads
    /// `recorded` (which may repeat); with `unconditional`, or when nothing
    /// was recorded, makes it an unconditional consumer instead.
    ///
    /// - Complexity: O(reads²) for a few reads when they did not change (the
    ///   usual case, no allocation); else O(reads) expected.
    @inlinable @inline(__always)
    mutating func updateDependencies(_ handle: ConsumerHandle<State>, recorded: [_Dependency], unconditional isUnconditional: Bool) {
        // NB: a selector usually reads what it read last time; checking
        // that in place spares building and re-indexing a new list. (An
        // empty list is never the same set as reads that are not empty.)
        if !isUnconditional, !recorded.isEmpty, recorded.count <= 32,
           handle.dependencies.isSameSet(as: recorded) { return }
        _replaceDependencies(handle, recorded: recorded, unconditional: isUnconditional)
    }

    @inlinable
    mutating func _replaceDependencies(_ handle: ConsumerHandle<State>, recorded: [_Dependency], unconditional isUnconditional: Bool) {
        if isUnconditional || recorded.isEmpty {
            for dependency in handle.dependencies {
                index.remove(dependency, reader: handle.id)
                hubNotices.note(dependency)
            }
            if !handle.dependencies.isEmpty { hubNotices.noteUnconditional() }
            handle.dependencies.removeAll()
            unconditional.insert(_IDKey(handle.id))
            return
        }
        if handle.dependencies.isEmpty {
            _removeUnconditional(handle.id)
            hubNotices.noteUnconditional()
        }
        let dependencies = _DependencyList(deduplicating: recorded)
        for dependency in handle.dependencies {
            index.remove(dependency, reader: handle.id)
            hubNotices.note(dependency)
        }
        for dependency in dependencies {
            index.insert(dependency, reader: handle.id)
            hubNotices.note(dependency)
        }
        handle.dependencies = dependencies
    }

    /// Whether `recorded` (with repeats) holds exactly the elements of
    /// `unique` (without repeats).
    @inlinable
    static func _sameSet<Unique: RandomAccessCollection<_Dependency>>(_ recorded: [_Dependency], _ unique: Unique) -> Bool
    where Unique.Index == Int {
        // NB: a selector usually reads the same things in the same order,
        // often the same thing twice in a row (a comparison reads both
        // sides): one pass that skips a repeat of the previous read settles
        // that, since `unique` keeps the first-read order.
        let uniqueCount = unique.count
        var matched = 0
        var inOrder = true
        for index in recorded.indices {
            let dependency = recorded[index]
            if index > 0 && dependency == recorded[index &- 1] { continue }
            guard matched < uniqueCount, unique[matched] == dependency else {
                inOrder = false
                break
            }
            matched &+= 1
        }
        if inOrder && matched == uniqueCount { return true }
        for dependency in recorded where !unique.contains(dependency) { return false }
        for dependency in unique where !recorded.contains(dependency) { return false }
        return true
    }

    /// Checks that the reader index is exactly the inverse of the live
    /// consumers' dependency lists.
    ///
    /// - Complexity: O(consumers + their dependencies).
    @usableFromInline
    func _invariantCheck() {
        #if FASTSTORE_INTERNAL_CHECKS
        var live = 0
        var registrations = 0
        var previousID = -1
        var removedSeen = 0
        for handle in ordered {
            precondition(handle.id == previousID + 1, "FastStore: a consumer's id is not its position")
            previousID = handle.id
            if handle.isRemoved {
                removedSeen += 1
                precondition(!unconditional.contains(_IDKey(handle.id)), "FastStore: removed consumer still unconditional")
                continue
            }
            live += 1
            precondition(handle.dependencies.isEmpty == unconditional.contains(_IDKey(handle.id)),
                         "FastStore: consumer \(handle.id) unconditional iff it has no dependencies")
            precondition(Set(handle.dependencies).count == handle.dependencies.count,
                         "FastStore: repeated dependency")
            for dependency in handle.dependencies {
                precondition(index.contains(dependency, reader: handle.id),
                             "FastStore: dependency of consumer \(handle.id) missing from the index")
            }
            registrations += handle.dependencies.count
        }
        precondition(removedSeen == removedInOrdered, "FastStore: removed count out of sync")
        precondition(live == count, "FastStore: live count out of sync")
        precondition(unconditional.count <= live, "FastStore: stale unconditional consumers")
        precondition(index._wholeCountHolds, "FastStore: the reader index miscounts the nodes read whole")
        precondition(index._elementReadersDisjoint, "FastStore: an element's readers in both of the index's maps")
        precondition(index.registrationCount == registrations, "FastStore: stale reader registrations")
        #endif
    }
}


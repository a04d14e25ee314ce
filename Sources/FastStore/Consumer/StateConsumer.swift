/// Calls consumers when the parts of the state they select change — the
/// API of ReSwiftConsumer's `StateConsumer`, at a cost that follows what
/// changed.
///
/// ```swift
/// let consumer = StateConsumer<Versioned<AppState>>()
/// consumer.add({ $0.counter }, onCounterChanged)      // (old: Int?, new: Int)
/// consumer.add({ $0.name }, onNameChanged)            // (old: String?, new: String?)
/// consumer.add({ $0.settings }, onSettingsChanged)    // a node as selection
/// consumer.consume(newState: state)
/// ```
///
/// A consumer's callback runs when its selection is not `==` to the one it
/// saw last; the first consume after `add` delivers `old == nil` (for
/// optional selections: only if the selection is not `nil`). Callbacks run
/// in registration order, on the thread that consumes.
///
/// The consumer never keeps the state. Per consumer it keeps the last
/// selection and, for versioned state (a ``VersionedValue`` such as
/// ``Versioned``), what the selector read. When the state comes from a
/// ``Store`` drain whose writes it can see, it runs only the selectors
/// that read something the drain wrote: a selector of an unchanged subtree
/// is not even called. Otherwise (plain state, the first consume, a state
/// built elsewhere, a skipped version, a wholesale replacement) it runs
/// every selector and compares with `==`, as ReSwiftConsumer does.
///
/// ## Re-entrancy and threads
/// A `consume(newState:)` that arrives while another is running — from a
/// callback, or from another thread — is queued and delivered after it, in
/// arrival order, by the thread already consuming. `add` and `remove` may
/// be called at any time, from any thread, callbacks included: a consumer
/// removed during a consume is not called afterwards, a consumer added
/// during a consume is first evaluated by the next one. Selectors must not
/// call into the consumer.
public final class StateConsumer<State>: @unchecked Sendable {
    // NB: `@unchecked Sendable`: every field below is guarded by `_lock`,
    // except `_recorder`, `_candidates` and `_plan`, which only the thread
    // holding the consuming turn (`_isConsuming`) touches. For the same
    // reason the fields opt out of Swift's dynamic exclusivity checks
    // (`@exclusivity(unchecked)`), which cost on every access of a class
    // property and would guard nothing the lock does not.

    @usableFromInline internal let _lock = _Lock()
    /// Reads the root identity and stamp of a versioned `State`; `nil` for
    /// plain state.
    @usableFromInline internal let _rootReader: ((State) -> _RootVersion)?

    /// Every consumer in registration order; removed ones stay until
    /// compaction.
    @exclusivity(unchecked) @usableFromInline internal var _ordered: [ConsumerHandle<State>] = []
    @exclusivity(unchecked) @usableFromInline internal var _removedInOrdered = 0
    @exclusivity(unchecked) @usableFromInline internal var _byID: [Int: ConsumerHandle<State>] = [:]
    @exclusivity(unchecked) @usableFromInline internal var _nextID = 0
    /// Node → consumers that read it, by kind.
    @exclusivity(unchecked) @usableFromInline internal var _index = _ReaderIndex()
    /// Consumers with no versioned dependency: never evaluated yet, or a
    /// selector that reads nothing versioned. Evaluated at every consume.
    @exclusivity(unchecked) @usableFromInline internal var _unconditional: Set<Int> = []
    /// Root of the last consumed state (versioned state only).
    @exclusivity(unchecked) @usableFromInline internal var _lastRoot: _RootVersion?
    /// The last consumed state, kept only while ``consumeInstantly`` is on
    /// and no store is connected.
    @exclusivity(unchecked) @usableFromInline internal var _instantState: State?
    /// The connected store's current state (see `connect(to:on:)`), read
    /// instead of keeping the last state when ``consumeInstantly`` is on.
    @exclusivity(unchecked) @usableFromInline internal var _instantSource: (() -> State?)?
    @exclusivity(unchecked) @usableFromInline internal var _consumeInstantly = false

    @exclusivity(unchecked) @usableFromInline internal var _isConsuming = false
    @exclusivity(unchecked) @usableFromInline internal var _pending: [_PendingConsume<State>] = []

    @usableFromInline internal let _recorder = _ReadRecorder()
    @exclusivity(unchecked) @usableFromInline internal var _candidates: [Int] = []
    @exclusivity(unchecked) @usableFromInline internal var _plan: [ConsumerHandle<State>] = []

    /// Statistics of the consumes so far, for tests and benchmarks.
    @exclusivity(unchecked) @usableFromInline internal var _stats = _ConsumeStatistics()

    /// An empty consumer.
    public init() {
        _rootReader = _RootVersion.reader(for: State.self)
    }

    /// Whether a consumer added now is called at once with the last
    /// consumed state (as `old: nil`), as in ReSwiftConsumer. Default
    /// `false`.
    ///
    /// Connected to a store (`connect(to:on:)`), the new consumer is called
    /// with the store's current state. Otherwise the consumer keeps the last
    /// consumed state while this is on. NB: a kept state shares its
    /// copy-on-write storage with the store's, so the reducer's next write
    /// to a shared node or buffer copies it. With it off (the default)
    /// nothing of the state is kept, and a consumer added between consumes
    /// is first called at the next consume. A consumer added during a
    /// consume is first called at the next one either way.
    public var consumeInstantly: Bool {
        get { _lock.withLock { _consumeInstantly } }
        set {
            _lock.withLock {
                _consumeInstantly = newValue
                if !newValue { _instantState = nil }
            }
        }
    }

    /// The number of consumers registered.
    public var count: Int { _lock.withLock { _byID.count } }

    // MARK: Registration

    /// Registers a consumer built by `make` with a fresh id.
    @inlinable
    internal func _register(_ make: (Int) -> ConsumerHandle<State>) -> ConsumerHandle<State> {
        _lock.lock()
        let handle = make(_nextID)
        _nextID += 1
        _ordered.append(handle)
        _byID[handle.id] = handle
        _unconditional.insert(handle.id)
        guard _consumeInstantly, !_isConsuming, _instantSource != nil || _instantState != nil else {
            _lock.unlock()
            return handle
        }
        _isConsuming = true
        let source = _instantSource
        let kept = _instantState
        _lock.unlock()
        // NB: the source is read holding the consuming turn, not the lock:
        // reading a store's state takes the store's lock.
        if let state = source?() ?? kept {
            _evaluateAndDeliver(handle, state)
        }
        _finishConsuming()
        return handle
    }

    /// Removes a consumer: its callback is not called again, even by a
    /// consume under way. Removing a consumer that is not registered (twice,
    /// or from another `StateConsumer`) does nothing.
    ///
    /// - Complexity: O(its dependencies), amortized.
    public func remove(_ consumer: ConsumerHandle<State>) {
        _lock.withLock {
            guard _byID[consumer.id] === consumer else { return }
            _unregister(consumer)
            _compactIfNeeded()
        }
    }

    /// Removes every consumer.
    ///
    /// - Complexity: O(consumers + their dependencies).
    public func removeAll() {
        _lock.withLock {
            for handle in _ordered where !handle.isRemoved {
                handle.isRemoved = true
                handle.dependencies = []
            }
            _ordered.removeAll()
            _removedInOrdered = 0
            _byID.removeAll()
            _unconditional.removeAll()
            _index = _ReaderIndex()
        }
    }

    /// Must hold the lock.
    @inlinable
    internal func _unregister(_ handle: ConsumerHandle<State>) {
        handle.isRemoved = true
        _byID[handle.id] = nil
        _unconditional.remove(handle.id)
        for dependency in handle.dependencies { _index.remove(dependency, reader: handle.id) }
        handle.dependencies = []
        _removedInOrdered += 1
    }

    /// Must hold the lock.
    @inlinable
    internal func _compactIfNeeded() {
        guard _removedInOrdered > 16, _removedInOrdered * 2 > _ordered.count else { return }
        _ordered.removeAll { $0.isRemoved }
        _removedInOrdered = 0
    }

    // MARK: Consuming

    /// Delivers `newState` to the consumers whose selection changed since
    /// they last saw one.
    ///
    /// When `newState` comes from a ``Store`` drain (called from a store
    /// subscriber, with the drain's changes visible) and the consumer's last
    /// state is the drain's starting state, only the consumers that read a
    /// node the drain wrote are evaluated; the others keep their selection
    /// and their selectors are not run. Otherwise every selector runs.
    ///
    /// - Complexity: on the journaled path, O(writes + affected consumers ×
    ///   their selector cost), independent of the size of the state and of
    ///   the number of unaffected consumers; otherwise O(consumers × their
    ///   selector cost).
    @inlinable
    public func consume(newState: State) {
        let changes = _DrainChanges.current
        _lock.lock()
        if _isConsuming {
            _pending.append(.state(newState, changes))
            _lock.unlock()
            return
        }
        _isConsuming = true
        _lock.unlock()
        _consumeOne(newState, changes)
        _finishConsuming()
    }

    /// Consumes the state `read` returns, reading it only once this thread
    /// holds the consuming turn (so that no consume queued after it can
    /// deliver an older state). Used to deliver a store's current state.
    @inlinable
    internal func _consumeLatest(_ read: @escaping () -> State) {
        _lock.lock()
        if _isConsuming {
            _pending.append(.read(read))
            _lock.unlock()
            return
        }
        _isConsuming = true
        _lock.unlock()
        _consumeOne(read(), nil)
        _finishConsuming()
    }

    /// Delivers the queued consumes, then gives up the consuming turn.
    @inlinable
    internal func _finishConsuming() {
        while true {
            _lock.lock()
            if _pending.isEmpty {
                _isConsuming = false
                _lock.unlock()
                return
            }
            let next = _pending.removeFirst()
            _lock.unlock()
            switch next {
            case .state(let state, let changes): _consumeOne(state, changes)
            case .read(let read): _consumeOne(read(), nil)
            }
        }
    }

    /// One consume, holding the consuming turn.
    @inlinable
    internal func _consumeOne(_ state: State, _ changes: _DrainChanges?) {
        _lock.lock()
        _instantState = _consumeInstantly && _instantSource == nil ? state : nil
        _plan.removeAll(keepingCapacity: true)
        if let _rootReader {
            let newRoot = _rootReader(state)
            if let lastRoot = _lastRoot, lastRoot == newRoot {
                // Same node at the same stamp: same state. Only consumers
                // that have not seen it (or depend on nothing) run.
                _planCandidates(fromWrites: nil)
                _stats.unchangedConsumes += 1
            } else if let lastRoot = _lastRoot, let changes, changes.isChained,
                      changes.oldRoot == lastRoot, changes.newRoot == newRoot {
                _planCandidates(fromWrites: changes)
                _stats.journaledConsumes += 1
            } else {
                _planAll()
                _stats.fullConsumes += 1
            }
            _lastRoot = newRoot
        } else {
            _planAll()
            _stats.fullConsumes += 1
        }
        _lock.unlock()

        for handle in _plan {
            _evaluateAndDeliver(handle, state)
        }
        _plan.removeAll(keepingCapacity: true)
        #if FASTSTORE_INTERNAL_CHECKS
        _lock.withLock { _invariantCheck() }
        #endif
    }

    /// Plans every live consumer, in registration order. Must hold the lock.
    @inlinable
    internal func _planAll() {
        for handle in _ordered where !handle.isRemoved { _plan.append(handle) }
    }

    /// Plans the consumers affected by `changes` (none when `nil`), plus the
    /// unconditional ones, in registration order. Must hold the lock.
    @inlinable
    internal func _planCandidates(fromWrites changes: _DrainChanges?) {
        _candidates.removeAll(keepingCapacity: true)
        if let changes {
            for write in changes.writes {
                _index.collect(write.node, write.kind, into: &_candidates)
            }
        }
        _candidates.append(contentsOf: _unconditional)
        _candidates.sort()
        var previous = -1
        for id in _candidates where id != previous {
            previous = id
            if let handle = _byID[id] { _plan.append(handle) }
        }
    }

    /// Evaluates one consumer, updates its dependencies and calls it if its
    /// selection changed. Holds the consuming turn, not the lock.
    @inlinable
    internal func _evaluateAndDeliver(_ handle: ConsumerHandle<State>, _ state: State) {
        if _lock.withLock({ handle.isRemoved }) { return }
        let changed: Bool
        if _rootReader != nil {
            _recorder.dependencies.removeAll(keepingCapacity: true)
            handle.evaluationCount &+= 1
            changed = handle.evaluate(state, _recorder)
            _lock.lock()
            _stats.evaluations += 1
            if !handle.isRemoved { _updateDependencies(handle, recorded: _recorder.dependencies) }
            let removed = handle.isRemoved
            _lock.unlock()
            if removed { return }
        } else {
            handle.evaluationCount &+= 1
            changed = handle.evaluate(state, nil)
            _lock.lock()
            _stats.evaluations += 1
            let removed = handle.isRemoved
            _lock.unlock()
            if removed { return }
        }
        if changed {
            handle.deliver()
        }
    }

    /// Replaces the dependencies `handle` is indexed under with the reads
    /// `recorded` (which may repeat). Must hold the lock.
    ///
    /// - Complexity: O(reads²) for a few reads when they did not change (the
    ///   usual case, no allocation); else O(reads) expected.
    @inlinable
    internal func _updateDependencies(_ handle: ConsumerHandle<State>, recorded: [_Dependency]) {
        if recorded.isEmpty {
            _unconditional.insert(handle.id)
        } else if !handle.dependencies.isEmpty {
            // NB: a selector usually reads what it read last time; checking
            // that in place spares building and re-indexing a new list.
            if recorded.count <= 32, handle.dependencies.count <= 32,
               Self._sameSet(recorded, handle.dependencies) { return }
        } else {
            _unconditional.remove(handle.id)
        }
        let dependencies = Self._deduplicated(recorded)
        for dependency in handle.dependencies { _index.remove(dependency, reader: handle.id) }
        for dependency in dependencies { _index.insert(dependency, reader: handle.id) }
        handle.dependencies = dependencies
    }

    /// Whether `recorded` (with repeats) holds exactly the elements of
    /// `unique` (without repeats).
    @inlinable
    internal static func _sameSet(_ recorded: [_Dependency], _ unique: [_Dependency]) -> Bool {
        // NB: a selector usually reads the same things in the same order:
        // one pass settles that (element keys are `AnyHashable`s, whose
        // comparison is not cheap).
        if recorded.count == unique.count {
            var same = true
            for index in recorded.indices where recorded[index] != unique[index] {
                same = false
                break
            }
            if same { return true }
        }
        for dependency in recorded where !unique.contains(dependency) { return false }
        for dependency in unique where !recorded.contains(dependency) { return false }
        return true
    }

    /// `dependencies` without repeats, in first-read order.
    ///
    /// - Complexity: O(n²) for up to 16 reads (the usual case, no
    ///   allocation), O(n) expected beyond.
    @inlinable
    internal static func _deduplicated(_ dependencies: [_Dependency]) -> [_Dependency] {
        if dependencies.count <= 16 {
            var unique: [_Dependency] = []
            unique.reserveCapacity(dependencies.count)
            for dependency in dependencies where !unique.contains(dependency) {
                unique.append(dependency)
            }
            return unique
        }
        var seen = Set<_Dependency>()
        return dependencies.filter { seen.insert($0).inserted }
    }
}

/// A consume that arrived while another was running.
@usableFromInline
internal enum _PendingConsume<State> {
    /// A state, with the drain changes installed when it arrived.
    case state(State, _DrainChanges?)
    /// The latest state of a source, read when its turn comes.
    case read(() -> State)
}

/// Counters of what consumes did, for tests and benchmarks (read through
/// the `_statistics` SPI).
@frozen
public struct _ConsumeStatistics: Equatable, Sendable {
    /// Consumes that evaluated every consumer.
    public var fullConsumes = 0
    /// Consumes that evaluated only consumers affected by a drain's writes.
    public var journaledConsumes = 0
    /// Consumes of the very state consumed last.
    public var unchangedConsumes = 0
    /// Selector evaluations over all consumes.
    public var evaluations = 0
    public init() {}
}

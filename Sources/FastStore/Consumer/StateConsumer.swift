import Atomics

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
/// The consumer never keeps the state (unless ``consumeInstantly`` is on).
/// Per consumer it keeps the last selection and, for versioned state (a
/// ``VersionedValue`` such as ``Versioned``), what the selector read. When
/// the new state was produced from the last consumed one by store drains
/// whose writes it can find (every store logs them, by the root stamp they
/// produced), it runs only the selectors that read something those drains
/// wrote: a selector of an unchanged subtree is not even called. Otherwise
/// (plain state, the first consume, a state built elsewhere, a wholesale
/// replacement) it runs every selector and compares with `==`, as
/// ReSwiftConsumer does. A selector whose selection the tracking cannot see
/// through (a class instance in it, a selection not equal to itself) is run
/// at every consume. docs/tracking.md states the contract exactly.
///
/// ## Re-entrancy and threads
/// A `consume(newState:)` that arrives while another is running — from a
/// callback, or from another thread — is queued and delivered after it, in
/// arrival order, by the thread already consuming. `add` and `remove` may
/// be called at any time, from any thread, callbacks included: a consumer
/// removed during a consume is not called afterwards, a consumer added
/// during a consume is first evaluated by the next one. Selectors must not
/// call into the consumer.
public final class StateConsumer<State> {
    // NB: `@unchecked Sendable`: `_guarded` is guarded by `_lock`; `_turn`
    // is touched only by the thread holding the consuming turn
    // (`_guarded.turn`). Both opt out of Swift's dynamic exclusivity checks,
    // which cost on every access of a class property and would guard
    // nothing the lock and the turn do not.

    @usableFromInline internal let _lock = _Lock()
    /// Reads the root identity of a versioned `State`; `nil` for plain state.
    @usableFromInline internal let _rootReader: ((State) -> _RootVersion)?
    @exclusivity(unchecked) @usableFromInline internal var _guarded = _ConsumerGuarded<State>()
    @exclusivity(unchecked) @usableFromInline internal var _turn = _ConsumerTurnOwned<State>()
    /// How many removals were made (incremented under `_lock`): the thread
    /// holding the turn re-checks a consumer's `isRemoved` under the lock
    /// only when this moved since it last looked.
    /// (An `_OwnedAtomic`.)
    @usableFromInline internal let _removals = _OwnedAtomic<Int>(0)

    /// An empty consumer.
    public init() {
        _rootReader = _RootVersion.reader(for: State.self)
    }

    /// Whether a consumer added now is called at once with the last
    /// consumed state (as `old: nil`), as in ReSwiftConsumer. Default
    /// `false`.
    ///
    /// While it is on, the consumer keeps the last state it consumed (from
    /// whichever store or caller it came), and a new consumer is evaluated
    /// against it. NB: a kept state shares its copy-on-write storage with
    /// the store's, so it costs no copy of its own. With it off nothing of
    /// the state is kept, and a consumer added between consumes is first
    /// called at the next consume. A consumer added during a consume is
    /// first called at the next one either way.
    public var consumeInstantly: Bool {
        get { _lock.withLock { _guarded.consumeInstantly } }
        set {
            _lock.withLock {
                _guarded.consumeInstantly = newValue
                if !newValue { _guarded.instantState = nil }
                // NB: a consumer that keeps its last state is told of
                // every publish by its hubs (see `_WakeUpHub`).
                _guarded.registry.hubNotices.noteUnconditional()
            }
            _tellHubsIfPending()
        }
    }

    /// The number of consumers registered.
    public var count: Int { _lock.withLock { _guarded.registry.count } }

    // MARK: Registration

    /// Registers a consumer built by `make` with a fresh id, and with
    /// ``consumeInstantly`` on evaluates it against the last consumed state.
    @inlinable
    internal func _register(_ make: (Int) -> ConsumerHandle<State>) -> ConsumerHandle<State> {
        _lock.lock()
        let handle = _guarded.registry.register(make)
        guard _guarded.consumeInstantly, let state = _guarded.instantState, _guarded.turn.takeIfFree() else {
            let tellHubs = _guarded.registry.hubNotices.isPending
            _lock.unlock()
            if tellHubs { _tellHubs(markUnsynced: false) }
            return handle
        }
        _turn.removalsSeen = _removals.load(ordering: .relaxed)
        _turn.tag = _guarded.instantTag
        _lock.unlock()
        _evaluateAndDeliver(handle, state)
        _lock.withLock { _flushEvaluations() }
        _finishTurn()
        _tellHubsIfPending()
        return handle
    }

    /// Removes a consumer: its callback is not called again, even by a
    /// consume under way. Removing a consumer that is not registered (twice,
    /// or from another `StateConsumer`) does nothing.
    ///
    /// - Complexity: O(its dependencies), amortized.
    public func remove(_ consumer: ConsumerHandle<State>) {
        let tellHubs = _lock.withLock {
            _guarded.registry.remove(consumer)
            _removals.wrappingIncrement(ordering: .releasing)
            return _guarded.registry.hubNotices.isPending
        }
        if tellHubs { _tellHubs(markUnsynced: false) }
    }

    /// Removes every consumer.
    ///
    /// - Complexity: O(consumers + their dependencies).
    public func removeAll() {
        let tellHubs = _lock.withLock {
            _guarded.registry.removeAll()
            _removals.wrappingIncrement(ordering: .releasing)
            return _guarded.registry.hubNotices.isPending
        }
        if tellHubs { _tellHubs(markUnsynced: false) }
    }

    // MARK: Consuming

    /// Delivers `newState` to the consumers whose selection changed since
    /// they last saw one.
    ///
    /// When `newState` was produced from the last consumed state by store
    /// drains (any store, delivered any way), only the consumers that read a
    /// node those drains wrote are evaluated; the others keep their
    /// selection and their selectors are not run. Otherwise every selector
    /// runs.
    ///
    /// - Complexity: on the journaled path, O(writes + affected consumers ×
    ///   their selector cost), independent of the size of the state and of
    ///   the number of unaffected consumers; otherwise O(consumers × their
    ///   selector cost).
    @inlinable
    public func consume(newState: State) {
        _lock.lock()
        let mustConsume = _guarded.turn.arrive(.state(newState))
        _lock.unlock()
        guard mustConsume else { return }
        _turn.tag = 0
        _consumeOne(newState)
        _finishTurn()
    }

    /// Consumes the state `read` returns, reading it only once this thread
    /// holds the consuming turn (so that no consume queued after it can
    /// deliver an older state). Used to deliver a store's current state.
    @inlinable
    internal func _consumeLatest(_ read: @escaping () -> State) {
        _lock.lock()
        let mustConsume = _guarded.turn.arrive(.read(read))
        _lock.unlock()
        guard mustConsume else { return }
        _turn.tag = 0
        _consumeOne(read())
        _finishTurn()
    }

    /// As ``_consumeLatest(_:)``, for a source that numbers its states:
    /// `read` returns the state and its number, which the callbacks of this
    /// consume read as ``_currentTag`` (a scope hub passes the store's
    /// publication generation, so that a scope tells a state published
    /// before it subscribed from one published after, even when both have
    /// the same root: a restored state).
    @inlinable
    internal func _consumeLatestTagged(_ read: @escaping () -> (State, UInt64)) {
        _lock.lock()
        let mustConsume = _guarded.turn.arrive(.readTagged(read))
        _lock.unlock()
        guard mustConsume else { return }
        let (state, tag) = read()
        _turn.tag = tag
        _consumeOne(state)
        _finishTurn()
    }

    /// The number of the state being consumed, as its source gave it to
    /// ``_consumeLatestTagged(_:)`` (0 for a consume of an untagged state).
    /// Read by selectors and callbacks only: it belongs to the thread
    /// holding the consuming turn.
    @inlinable
    internal var _currentTag: UInt64 { _turn.tag }

    /// Delivers the queued consumes, then gives up the consuming turn.
    @inlinable
    internal func _finishTurn() {
        while true {
            _lock.lock()
            let next = _guarded.turn.next()
            _lock.unlock()
            guard let next else { return }
            _consumePending(next)
        }
    }

    /// Consumes a queued consume, holding the consuming turn.
    @inlinable
    internal func _consumePending(_ pending: _PendingConsume<State>) {
        switch pending {
        case .state(let state):
            _turn.tag = 0
            _consumeOne(state)
        case .read(let read):
            _turn.tag = 0
            _consumeOne(read())
        case .readTagged(let read):
            let (state, tag) = read()
            _turn.tag = tag
            _consumeOne(state)
        }
    }

    /// One consume, holding the consuming turn.
    ///
    /// - Parameters:
    ///   - hub: The wake-up hub delivering `state`, if one is.
    ///   - proofFrom: The hub's previous root: the consumer's selections
    ///     hold there when it is anchored at this hub (see `_WakeUpHub`).
    ///   - proof: The drains from `proofFrom` to `state`'s root.
    ///   - hubMatched: Whether the hub woke the consumer because a write of
    ///     `proof` affects a read it mirrors for the consumer (not because
    ///     it tells the consumer every publish).
    @inlinable
    internal func _consumeOne(
        _ state: State, hub: ObjectIdentifier? = nil, proofFrom: _RootVersion? = nil, proof: _HubProof? = nil,
        hubMatched: Bool = false
    ) {
        _turn.plan._removeAllKeepingCapacity()
        let newRoot = _rootReader?(state)
        let lastRoot = _turn.lastRoot
        // NB: the change log is read before taking the consumer's lock, so
        // the two locks are never held together.
        var journaled = false
        // Whether `proof` holds the drains from `lastRoot` on.
        var proven = false
        if let newRoot, let lastRoot, lastRoot != newRoot {
            if let hub, proof != nil, let proofFrom, _turn.hubAnchor == _HubAnchor(hub: hub, root: lastRoot),
               lastRoot.node == newRoot.node, proofFrom.node == newRoot.node, lastRoot.version <= proofFrom.version {
                // The hub checked every step from `lastRoot` to `proofFrom`
                // against this consumer's reads: none wrote one.
                proven = true
                journaled = true
            } else if proof != nil, let proofFrom, proofFrom == lastRoot {
                // The hub's proof is the drains from this consumer's own
                // last root (an unanchored consumer, just connected, that
                // missed no publish): what the change log would give.
                proven = true
                journaled = true
            } else {
                journaled = _ChangeLog.spans(from: lastRoot, to: newRoot, into: &_turn.spans, cached: &_turn.changeLog)
            }
        }
        _turn.hubAnchor = hub != nil && newRoot != nil ? _HubAnchor(hub: hub!, root: newRoot!) : nil

        var all: [ConsumerHandle<State>]? = nil
        // NB: a first consume outside a hub marks the store's change log
        // wanted (see `_ChangeLog.wanted`): the consumer's later consumes
        // read it. A hub's consumers take their writes from the hub.
        var marksLog = false
        _lock.lock()
        _turn.removalsSeen = _removals.load(ordering: .relaxed)
        if _guarded.consumeInstantly {
            _guarded.instantState = state
            _guarded.instantTag = _turn.tag
        }
        if let newRoot {
            if let lastRoot, lastRoot == newRoot {
                // Same node at the same stamp: same state. Only consumers
                // that have not seen it (or depend on nothing) run.
                _guarded.registry.planAffected(by: [], candidates: &_turn.candidates, into: &_turn.plan)
                _guarded.stats.unchangedConsumes += 1
            } else if journaled {
                if hubMatched, proven, _guarded.registry.count == 1, let only = _guarded.registry.allIfCompact {
                    // NB: the hub found a write of these drains affecting
                    // a read of this consumer's one selection (its
                    // mirror of the consumer's reads is that selection's):
                    // the selection is the plan the consumer's own lookup
                    // would make. (While a change of the consumer's reads
                    // has not reached the mirror yet, evaluating the one
                    // selection is at worst an evaluation too many: its
                    // callback runs only when its value changed.)
                    all = only
                } else if proven, case .spans(let spans)? = proof {
                    _guarded.registry.planAffected(by: spans, candidates: &_turn.candidates, into: &_turn.plan)
                } else {
                    // NB: a drain's own changes go in the turn's array (emptied
                    // at the end of the consume) only here, when a lookup
                    // needs them as an array.
                    if proven, case .drain(let drain)? = proof { _turn.spans.append(drain.takeUnretainedValue()) }
                    _guarded.registry.planAffected(by: _turn.spans, candidates: &_turn.candidates, into: &_turn.plan)
                }
                _guarded.stats.journaledConsumes += 1
            } else {
                all = _guarded.registry.allIfCompact
                if all == nil { _guarded.registry.planAll(into: &_turn.plan) }
                _guarded.stats.fullConsumes += 1
                if let lastRoot, lastRoot.node == newRoot.node, lastRoot.version < newRoot.version {
                    _guarded.stats.unlinkedConsumes += 1
                }
                #if FASTSTORE_INTERNAL_CHECKS
                if lastRoot != nil { _diagnoseSlowPath(lastRoot: lastRoot!, newRoot: newRoot) }
                #endif
            }
            _turn.lastRoot = newRoot
            marksLog = lastRoot == nil && _guarded.hubLinks.isEmpty
        } else {
            all = _guarded.registry.allIfCompact
            if all == nil { _guarded.registry.planAll(into: &_turn.plan) }
            _guarded.stats.fullConsumes += 1
        }
        if all == nil && _turn.plan.isEmpty {
            // Nothing to evaluate (the usual consume of a screen whose reads
            // no drain wrote): the end of the consume shares this critical
            // section.
            let tellHubs = _endConsume(hub: hub)
            _lock.unlock()
            _turn.spans._removeAllKeepingCapacity()
            if marksLog { _ChangeLog.markWanted(under: newRoot!, cached: &_turn.changeLog) }
            if tellHubs.tell { _tellHubs(markUnsynced: tellHubs.unanchored, except: hub) }
            return
        }
        _lock.unlock()
        _turn.spans._removeAllKeepingCapacity()
        if marksLog { _ChangeLog.markWanted(under: newRoot!, cached: &_turn.changeLog) }

        // NB: a full consume runs over the registry's own array when it can
        // (shared, not copied: a callback that adds or removes a consumer
        // copies the registry's side on write).
        if let all {
            _evaluateAndDeliverAll(all, state)
        } else {
            // NB: a local copy holds the plan's buffer (and its handles)
            // for the loop, whatever the callbacks do; it ends with the
            // block, so that the plan is emptied in place below.
            do {
                let plan = _turn.plan
                _evaluateAndDeliverAll(plan, state)
            }
        }
        _turn.plan._removeAllKeepingCapacity()
        _lock.lock()
        let tellHubs = _endConsume(hub: hub)
        _lock.unlock()
        if tellHubs.tell { _tellHubs(markUnsynced: tellHubs.unanchored, except: hub) }
    }

    /// The end of a consume, under the lock: what it leaves for the next
    /// one, and whether the hubs must be told (see `_tellHubs`).
    @inlinable @inline(__always)
    internal func _endConsume(hub: ObjectIdentifier?) -> (tell: Bool, unanchored: Bool) {
        // NB: the causes a `consume(_:)` of a change set for this consume
        // (`StateConsumer+Causes.swift`) are not those of the next.
        if let causeSlot = _guarded.causeSlot { causeSlot.current = nil }
        _flushEvaluations()
        #if FASTSTORE_INTERNAL_CHECKS
        _guarded.registry._invariantCheck()
        #endif
        // NB: a consume another hub (or no hub) delivered unanchors a
        // connected consumer: its hubs tell it every publish until one
        // anchors it again.
        let unanchored = !_guarded.hubLinks.isEmpty && (hub == nil || _guarded.hubLinks.count > 1)
        return (unanchored || _guarded.registry.hubNotices.isPending, unanchored)
    }
}

extension StateConsumer: @unchecked Sendable where State: Sendable {}

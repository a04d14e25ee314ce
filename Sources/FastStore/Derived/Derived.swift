/// A value derived from the state, declared once and memoized: recomputed
/// only when a node it read was written, and shared by everything that
/// reads it (consumers, subscribers, sequences, views, other derived
/// values).
///
///     enum Remaining: CountingSummary {
///         static func counts(_ todo: Todo) -> Bool { !todo.done }
///     }
///     let remaining = Derived { (state: Versioned<AppState>) in
///         state.todos.fold(Remaining.self)         // O(1) with the fold attached
///     }
///     let progress = Derived { (state: Versioned<AppState>) in
///         (total: state.todos.count, left: remaining(state))   // a derived value as input
///     }
///     consumer.add({ remaining($0) }) { (old: Int?, new: Int) in badge.text = "\(new)" }
///     remaining(store.state)                        // the same memo, on any thread
///
/// Call it with a state (`remaining(state)`). On versioned state (a
/// ``VersionedValue`` root such as ``Versioned``) it keeps the last value
/// it computed, what the computation read (as a consumer's selector
/// records it), and the root stamp of the state it was computed on. Asked
/// for another state, it looks up the store drains that lead there in the
/// store's change log, as consumers do: when none of their writes touches what
/// it read (by the trigger rule, docs/tracking.md), the value still
/// holds and `compute` is not called. Otherwise (a node it read was written,
/// a state the log cannot link: another store's, a wholesale replacement, an
/// older version, a drain the log dropped (it keeps its store's last 128))
/// it computes again. Plain
/// (unversioned) state has nothing to prove an unchanged input with:
/// `compute` runs at every call.
///
/// Reading a derived value reports what it read to whoever is recording:
/// a consumer selecting `{ remaining($0) }` depends on the nodes
/// `remaining` read, and is evaluated only when one of them is written; a
/// SwiftUI view (a `withObservationTracking` scope) that reads it is
/// invalidated by the same writes. A derived value whose computation the
/// tracking cannot see through (it reads nothing versioned, its value holds
/// a class instance, its value is not equal to itself) is never memoized,
/// and a consumer that reads it is evaluated at every consume.
///
/// `compute` must be a function of the state alone: a derived value that
/// also reads a global is recomputed only when its state reads change (the
/// contract of a consumer's selector). It may run on any thread that reads
/// the value, and concurrently on two of them, hence `@Sendable`.
///
/// - Complexity: declaring one is O(1). Reading it on the state it was
///   computed on: O(what it read), to report those reads. On a later state
///   of the same store: O(writes since) to check the drains, then the same.
///   A recomputation: `compute`'s cost, plus O(what it read) to keep and
///   report it.
public final class Derived<State, Value: Equatable> {
    // NB: `@unchecked Sendable` when `Value` is: `_guarded` is behind
    // `_lock`; the memo it holds is immutable; `compute` is `@Sendable`.
    @usableFromInline internal let _compute: @Sendable (State) -> Value
    /// Reads the root identity of a versioned `State`; `nil` for plain state.
    @usableFromInline internal let _rootReader: ((State) -> _RootVersion)?
    @usableFromInline internal let _inspector = _SelectionInspector<Value>()
    @usableFromInline internal let _lock = _Lock()
    @exclusivity(unchecked) @usableFromInline internal var _guarded = _DerivedGuarded<Value>()

    /// A derived value computed by `compute`.
    ///
    /// - Complexity: O(1); `compute` first runs at the first read.
    public init(_ compute: @escaping @Sendable (State) -> Value) {
        _compute = compute
        _rootReader = _RootVersion.reader(for: State.self)
    }

    /// The value for `state`: the memoized one when nothing it read was
    /// written since it was computed, else computed now (and memoized).
    ///
    /// - Complexity: see the type's documentation.
    @inlinable
    public func callAsFunction(_ state: State) -> Value {
        guard let rootReader = _rootReader else {
            _lock.withLock { _guarded.computeCount &+= 1 }
            _markUntrackable()
            return _compute(state)
        }
        let root = rootReader(state)
        _lock.lock()
        let entry = _guarded.entry
        var changeLog = _guarded.changeLog
        _lock.unlock()
        var holds: Bool? = false
        if entry == nil {
            // NB: the first read marks the store's change log wanted (see
            // `_ChangeLog.wanted`): the next read asks it whether the memo
            // holds.
            let known = changeLog.map { ObjectIdentifier($0) }
            _ChangeLog.markWanted(under: root, cached: &changeLog)
            if let found = changeLog, ObjectIdentifier(found) != known { _lock.withLock { _guarded.changeLog = found } }
        }
        if let entry {
            let known = changeLog.map { ObjectIdentifier($0) }
            holds = entry.memo._holds(from: entry.root, to: root, changeLog: &changeLog)
            if let found = changeLog, ObjectIdentifier(found) != known { _lock.withLock { _guarded.changeLog = found } }
            // NB: the change log could not link the memo's state to this
            // later version of the same root (a drain dropped from it).
            if holds == nil, entry.root.node == root.node, entry.root.version < root.version {
                _lock.withLock { _guarded.unlinkedChecks &+= 1 }
            }
        }
        if let entry, holds == true {
            if entry.root != root {
                // NB: moved forward only if nobody replaced the entry since:
                // any entry is right for its own root.
                _lock.withLock {
                    if _guarded.entry?.memo === entry.memo, _guarded.entry?.root == entry.root {
                        _guarded.entry?.root = root
                    }
                }
            }
            entry.memo._report()
            return entry.memo.value
        }
        return _recompute(state, root)
    }

    /// Computes the value for `state` at `root`, recording what it reads,
    /// keeps it when the reads can tell when it changes, and reports them.
    @usableFromInline
    internal func _recompute(_ state: State, _ root: _RootVersion) -> Value {
        // NB: the spare recorder is taken (a recomputation on another
        // thread, or nested in `compute`, makes its own), and given back
        // with its buffer's capacity.
        _lock.lock()
        let recorder = _guarded.spareRecorder ?? _ReadRecorder()
        _guarded.spareRecorder = nil
        let previous = _guarded.entry?.memo
        _lock.unlock()
        recorder.dependencies._removeAllKeepingCapacity()
        let (value, untrackable) = _selectRecording(
            state, _compute, recorder, inspector: _inspector, isSame: ==)
        let memo = _DerivedMemo(value: value, recorded: recorder.dependencies, previous: previous)
        let memoizable = !untrackable && !memo.dependencies.isEmpty
        _lock.withLock {
            _guarded.computeCount &+= 1
            _guarded.entry = memoizable ? _DerivedEntry(memo: memo, root: root) : nil
            _guarded.spareRecorder = recorder
        }
        memo._report()
        if !memoizable { _markUntrackable() }
        return value
    }

    /// Tells the recorder of the calling thread, if any, that this read
    /// cannot be tracked by its dependencies.
    @usableFromInline
    internal func _markUntrackable() {
        _TrackingContext.ifPresent?.recorder?.sawUntrackable = true
    }
}

extension Derived: @unchecked Sendable where Value: Sendable {}

/// The part of a ``Derived`` guarded by its lock.
@usableFromInline
internal struct _DerivedGuarded<Value> {
    /// The memo and the root stamp it is known to hold at.
    @usableFromInline var entry: _DerivedEntry<Value>?
    /// How many times `compute` ran.
    @usableFromInline var computeCount = 0
    /// How many memo checks the change log could not answer (see
    /// `_unlinkedChecks`).
    @usableFromInline var unlinkedChecks = 0
    /// A recorder for the next computation, kept with its buffer.
    @usableFromInline var spareRecorder: _ReadRecorder?
    /// The change log that linked the last states this value was read on.
    @usableFromInline var changeLog: _ChangeLog?
    @inlinable init() {}
}

@usableFromInline
internal struct _DerivedEntry<Value> {
    @usableFromInline let memo: _DerivedMemo<Value>
    @usableFromInline var root: _RootVersion
    @inlinable init(memo: _DerivedMemo<Value>, root: _RootVersion) { self.memo = memo; self.root = root }
}

@_spi(Testing)
extension Derived {
    /// How many times `compute` ran (tests count recomputations with it).
    public var _computeCount: Int { _lock.withLock { _guarded.computeCount } }

    /// How many times the memo was checked against a later version of its
    /// state's root that the change log could not link to the memo's (a
    /// drain dropped from the store's log, which keeps its last 128):
    /// each may add a computation. A test that counts computations holds exact counts
    /// only while this is 0.
    public var _unlinkedChecks: Int { _lock.withLock { _guarded.unlinkedChecks } }

    /// Whether a memo is kept.
    public var _isMemoized: Bool { _lock.withLock { _guarded.entry != nil } }
}

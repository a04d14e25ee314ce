import Atomics

// A store's publication generation and the keys of its states, and the
// per-store Observation counters the tests and measurements read.

/// A store's published state at one generation, as the key of the
/// trackings that read it (``_ObservationHub/_renotify(_:onMain:attempt:)``).
struct _SnapshotKey: Hashable, Sendable {
    /// The store's ``_Publication``.
    let publication: ObjectIdentifier
    let generation: UInt64
}

/// The generation of a store's published state, which every publish steps
/// (under the store's lock): what a thread's tracked reads are checked
/// against.
@usableFromInline
internal final class _Publication: @unchecked Sendable {
    // NB: `@unchecked Sendable`: an atomic, and `snapshot`, guarded by the
    // store's lock.
    // NB: an `_OwnedAtomic`, not a `ManagedAtomic` (see `_OwnedAtomic`).
    @usableFromInline let generation = _OwnedAtomic<UInt64>(0)

    /// The key every tracked read of the state at one generation registers,
    /// and on which threads such reads ran.
    @usableFromInline
    struct Snapshot {
        let generation: UInt64
        var keyPath: KeyPath<_ObservationHub, Int>
        var readOnMain = false
        var readElsewhere = false
    }

    /// The snapshot of the latest generation read, made once per generation
    /// (a key path with an argument costs a run-time instantiation).
    /// Guarded by the store's lock.
    var snapshot: Snapshot?

    // Counters of this store's per-node Observation (tests, measurements):
    /// The re-notifications of this store's looks and snapshot keys
    /// scheduled and not yet over (see `_ObservationHub._renotify`).
    let pendingRenotifications = ManagedAtomic<Int>(0)
    /// The dependencies filed under this store's live looks. Guarded by
    /// the hub's lock.
    var filedDependencies = 0
    /// How many times a look was told again because an earlier `state`
    /// read of this store, which its tracking may hold values of, was
    /// outdated by a publish (see `_ObservationHub._checkEarlierReads`):
    /// the extra invalidations that rule costs when the earlier read was
    /// another tracking's.
    let earlierReadRenotifications = ManagedAtomic<Int>(0)

    @usableFromInline init() {}

    /// The key path every tracked read of the state at `generation`
    /// registers. Must hold the store's lock.
    @usableFromInline
    func snapshotKeyPath(_ generation: UInt64, onMain: Bool) -> KeyPath<_ObservationHub, Int> {
        if snapshot?.generation != generation {
            let keyPath = \_ObservationHub[_snapshot: _SnapshotKey(publication: ObjectIdentifier(self), generation: generation)]
            snapshot = Snapshot(generation: generation, keyPath: keyPath)
        }
        if onMain { snapshot!.readOnMain = true } else { snapshot!.readElsewhere = true }
        return snapshot!.keyPath
    }

    /// Takes the snapshot of `generation` (the state a publish replaces), if
    /// some tracked read made it. Must hold the store's lock.
    ///
    /// - Complexity: O(1).
    @usableFromInline
    func takeSnapshotKeyPath(_ generation: UInt64) -> Snapshot? {
        guard let taken = snapshot, taken.generation == generation else { return nil }
        snapshot = nil
        return taken
    }
}

/// Counters of the per-node Observation registrations, for tests.
///
/// NB: none is process-wide: each counts one store's looks, or the
/// registrations on the nodes a test names, so tests running in parallel
/// cannot move it.
@_spi(Testing)
public enum _ObservationStatistics {
    /// The number of (node, read) registrations on `nodes`, filed under
    /// looks that some Observation tracking holds.
    public static func liveRegistrations(on nodes: Set<NodeID>) -> Int {
        _ObservationHub.shared._liveRegistrations(on: nodes)
    }
}

@_spi(Testing)
extension Store {
    /// The dependencies filed under this store's live looks (per-node
    /// Observation; test hook).
    public var _observationFiledDependencies: Int {
        _ObservationHub.shared.lock.withLock { _publication.filedDependencies }
    }

    /// The asynchronous re-notifications of this store's tracked reads not
    /// yet over (test hook: each ends after a bounded number of attempts).
    public var _pendingObservationRenotifications: Int {
        _publication.pendingRenotifications.load(ordering: .acquiring)
    }

    /// How many times a tracking was told again because an earlier `state`
    /// read of this store on its thread was outdated by a publish
    /// (docs/observation.md, "Races"; measured in
    /// `ObservationExtraInvalidationMeasurement`).
    public var _earlierReadRenotifications: Int {
        _publication.earlierReadRenotifications.load(ordering: .relaxed)
    }
}

/// A hub of its own, with one store's publication and one thread's state,
/// driven by hand (tests of the hub's bookkeeping that other tests, which
/// use the process-wide hub, cannot disturb).
@_spi(Testing)
public final class _ObservationHubProbe {
    let hub = _ObservationHub()
    let thread = _ObservedThread()
    let publication = _Publication()

    public init() {}

    /// What a `state` read outside any tracking does: a look of its own.
    public func stateRead() {
        let generation = publication.generation.load(ordering: .relaxed)
        thread.observedPublication = publication
        thread.observedGeneration = generation
        hub.beginLook(thread, publication, generation: generation)
    }

    /// What a read of `node` after it does: filed under the thread's look.
    public func read(_ node: NodeID) {
        hub.access(node, .whole, thread)
    }

    /// The looks this hub made (live or retired for reuse).
    public var looksMade: Int { hub.lock.withLock { hub.looks.count } }
    /// The dependencies filed under this hub's live looks.
    public var filedDependencies: Int { hub.lock.withLock { hub.filedCount } }
}

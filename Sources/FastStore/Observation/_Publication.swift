import Atomics

// A store's publication generation and the keys of its states, and the
// per-node Observation counters the tests read.

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
    @usableFromInline let generation = ManagedAtomic<UInt64>(0)

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
@_spi(Testing)
public enum _ObservationStatistics {
    /// The number of (node, read) registrations on `nodes`, filed under
    /// looks that some Observation tracking holds.
    public static func liveRegistrations(on nodes: Set<NodeID>) -> Int {
        _ObservationHub.shared._liveRegistrations(on: nodes)
    }

    /// The number of dependencies filed under live looks, process-wide.
    public static var filedDependencies: Int {
        _ObservationHub.shared.lock.withLock { _ObservationHub.shared.filedCount }
    }

    /// The number of looks made (live or retired for reuse), process-wide.
    public static var looksMade: Int {
        _ObservationHub.shared.lock.withLock { _ObservationHub.shared.looks.count }
    }

    /// The number of asynchronous re-notifications of late reads not yet
    /// delivered.
    public static var pendingRenotifications: Int {
        _ObservationHub.shared.pendingRenotifications.load(ordering: .acquiring)
    }
}

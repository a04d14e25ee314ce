import Atomics
#if canImport(Dispatch)
import Dispatch
#endif
#if canImport(Darwin)
import Darwin
#endif
import Observation

// Fine-grained Observation of versioned state.
//
// A view that reads `store.state.rows[id: x].title` inside
// `withObservationTracking` (what SwiftUI does around `body`) registers one
// Observation access per versioned read: `(root, field rows)`,
// `(rows, element x)`, `(row x, field title)`. A publish looks up the nodes
// its drain wrote and calls `willSet`/`didSet` for exactly the accesses the
// trigger rule says a write affects. No macro on user types: the reads are
// the ones the versioned types already report to `_Tracking`.
//
// Observation cannot say whether a tracking is active on the thread, so the
// hub registers every versioned read made on a thread that read a versioned
// store's `state` (the thread's "observed reads" flag), outside selectors
// and drains. A registration outside any tracking is dropped at once: see
// `_ObservationToken`.

/// The Observation subject of every observed versioned read: one registrar
/// for all stores (node identities are process-wide, so a node's observers
/// are found whichever store publishes its write).
@usableFromInline
internal final class _ObservationHub: Observable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: every mutable field is guarded by `lock`;
    // the registrar is thread-safe.

    @usableFromInline static let shared = _ObservationHub()

    let registrar = ObservationRegistrar()
    let lock = _Lock()
    /// The live registrations, as readers of their dependency.
    var index = _ReaderIndex()
    /// The live registrations by id.
    var entries: [Int: _Entry] = [:]
    /// The live registration of each dependency, by id.
    var byDependency: [_Dependency: Int] = [:]
    var nextID = 0
    /// The number of live registrations: a publish with none skips the lock.
    let liveCount = ManagedAtomic<Int>(0)

    /// One live registration: the key path Observation holds, weakly (see
    /// `_ObservationToken` for why weakly).
    struct _Entry {
        let dependency: _Dependency
        weak var keyPath: KeyPath<_ObservationHub, Int>?
        /// The store state its latest read came from (its ``_Publication``
        /// and generation), and whether that read ran on the main thread.
        var publication: ObjectIdentifier?
        var generation: UInt64 = 0
        var onMain = false
    }

    init() {}

    /// The member an observed read stands for. Never read for its value:
    /// only its key path, `\_ObservationHub[_read: token]`, matters.
    subscript(_read token: _ObservationToken) -> Int { token.id }

    // MARK: Reads

    /// Registers an Observation access for a read of `kind` on `node`.
    ///
    /// - Complexity: O(1): a lock, a dictionary lookup, and for the first
    ///   read of a dependency since its last registration died, a token and
    ///   a key path (two allocations).
    @usableFromInline
    func access(_ node: NodeID, _ kind: _ReadKind, _ context: _TrackingContext) {
        let dependency = _Dependency(node: node, kind: kind)
        let publication = context.observedPublication.map(ObjectIdentifier.init)
        let onMain = _isMainThread
        lock.lock()
        let keyPath: KeyPath<_ObservationHub, Int>
        if let id = byDependency[dependency], let live = entries[id]?.keyPath {
            keyPath = live
            entries[id]!.publication = publication
            entries[id]!.generation = context.observedGeneration
            entries[id]!.onMain = onMain
        } else {
            nextID += 1
            let id = nextID
            let made = \_ObservationHub[_read: _ObservationToken(id: id)]
            if let stale = byDependency[dependency] {
                // The old registration's key path died; its token has not
                // unregistered yet (it will find itself replaced).
                entries[stale] = nil
                index.remove(dependency, reader: stale)
            } else {
                liveCount.wrappingIncrement(ordering: .relaxed)
            }
            byDependency[dependency] = id
            entries[id] = _Entry(
                dependency: dependency, keyPath: made,
                publication: publication, generation: context.observedGeneration, onMain: onMain)
            index.insert(dependency, reader: id)
            keyPath = made
        }
        lock.unlock()
        // NB: outside the lock: the registrar takes its own, and releasing
        // the last reference to a key path ends a token, which takes ours.
        registrar.access(self, keyPath: keyPath)
        // NB: after the registration. A publish that wrote after this
        // thread's `state` read and collected its observers before this
        // registration has stepped the generation first: it is seen here.
        if let observed = context.observedPublication,
           observed.generation.load(ordering: .sequentiallyConsistent) != context.observedGeneration {
            context.observedPublication = nil
            let key = _SnapshotKey(publication: ObjectIdentifier(observed), generation: context.observedGeneration)
            _renotify([\_ObservationHub[_snapshot: key]], onMain: onMain)
        }
    }

    // MARK: Late reads

    /// The key path every tracked read of a store's state at one
    /// generation registers: what a late read's re-notification fires.
    subscript(_snapshot key: _SnapshotKey) -> Int { 0 }

    /// The number of re-notifications scheduled and not yet delivered.
    let pendingRenotifications = ManagedAtomic<Int>(0)

    /// Tells Observation again, asynchronously, about `keyPaths`.
    ///
    /// Two reads need it. A *late* read: a publish came after the thread's
    /// `state` read, and the thread registered reads of the older state it
    /// got after the publish looked for observers, so the publish could not
    /// tell it (`keyPaths` is then the key every tracked read of that state
    /// registered). An *in-flight* read: a publish affected a registration
    /// made from the state just before it that is still held after the
    /// notification: held by a tracking that had not installed its
    /// observers yet (Observation installs them only when the tracked
    /// closure returns), as a told tracking lets its key paths go.
    ///
    /// NB: asynchronously, so that the tracking is installed by then: on the
    /// main queue when the read ran on the main thread (SwiftUI installs
    /// its tracking in the same turn of the main queue), else on a global
    /// queue a millisecond later (best effort). A tracking told twice is
    /// invalidated once more than it needed, at worst.
    func _renotify(_ keyPaths: [KeyPath<_ObservationHub, Int>], onMain: Bool) {
        guard !keyPaths.isEmpty else { return }
        pendingRenotifications.wrappingIncrement(ordering: .relaxed)
        let box = _UncheckedSendable((self, keyPaths))
        let notify: @Sendable () -> Void = {
            let (hub, keyPaths) = box.value
            for keyPath in keyPaths { hub.registrar.willSet(hub, keyPath: keyPath) }
            for keyPath in keyPaths { hub.registrar.didSet(hub, keyPath: keyPath) }
            hub.pendingRenotifications.wrappingDecrement(ordering: .releasing)
        }
        #if canImport(Dispatch)
        if onMain {
            DispatchQueue.main.async(execute: notify)
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1), execute: notify)
        }
        #else
        notify()
        #endif
    }

    /// Whether the calling thread is the main thread (always `false` where
    /// that cannot be told cheaply: the re-notification then takes the
    /// global queue).
    var _isMainThread: Bool {
        #if canImport(Darwin)
        pthread_main_np() != 0
        #else
        false
        #endif
    }

    /// Called by a token whose key path Observation released: nobody
    /// observes the registration any more.
    func _unregister(_ id: Int) {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries.removeValue(forKey: id) else { return }
        index.remove(entry.dependency, reader: id)
        if byDependency[entry.dependency] == id {
            byDependency[entry.dependency] = nil
            liveCount.wrappingDecrement(ordering: .relaxed)
        }
    }

    // MARK: Publishes

    /// Tells Observation about a drain's writes, which `publication`'s store
    /// published as `generation`: calls `willSet` and `didSet` for every
    /// live registration a write affects (the consumers' trigger rule),
    /// once each; and again, asynchronously, for those whose latest read
    /// came from the state just before and that some tracking still holds
    /// after being told (see ``_renotify(_:onMain:)``).
    ///
    /// Called after the new state is published, like the store's own
    /// notification, so an `onChange` that reads the store sees it.
    ///
    /// - Complexity: O(1) with no live registration; else O(writes +
    ///   affected registrations).
    @usableFromInline
    func publish(_ writes: [(node: NodeID, kind: _WriteKind)], from publication: _Publication, generation: UInt64) {
        guard liveCount.load(ordering: .relaxed) > 0, !writes.isEmpty else { return }
        var ids: [Int] = []
        var affected: [KeyPath<_ObservationHub, Int>] = []
        var recent: [Int] = []
        let store = ObjectIdentifier(publication)
        lock.lock()
        for write in writes { index.collect(write.node, write.kind, into: &ids) }
        if !ids.isEmpty {
            if ids.count > 1 { ids.sort() }
            var last = -1
            for id in ids where id != last {
                last = id
                guard let entry = entries[id], let keyPath = entry.keyPath else { continue }
                affected.append(keyPath)
                if entry.publication == store && entry.generation &+ 1 == generation { recent.append(id) }
            }
        }
        lock.unlock()
        for keyPath in affected { registrar.willSet(self, keyPath: keyPath) }
        for keyPath in affected { registrar.didSet(self, keyPath: keyPath) }
        affected = []
        guard !recent.isEmpty else { return }
        // A registration read from the state just before this one that is
        // still held after the notification is held by a tracking that was
        // not told: one whose observers were not installed yet.
        var inFlight: [KeyPath<_ObservationHub, Int>] = []
        var inFlightOnMain: [KeyPath<_ObservationHub, Int>] = []
        lock.lock()
        for id in recent {
            guard let entry = entries[id], let keyPath = entry.keyPath else { continue }
            if entry.onMain { inFlightOnMain.append(keyPath) } else { inFlight.append(keyPath) }
        }
        lock.unlock()
        _renotify(inFlight, onMain: false)
        _renotify(inFlightOnMain, onMain: true)
    }

    /// The number of live registrations on `nodes` (tests).
    func _liveRegistrations(on nodes: Set<NodeID>) -> Int {
        lock.withLock { entries.values.count { nodes.contains($0.dependency.node) } }
    }
}

/// A store's published state at one generation, as the key of the
/// trackings that read it (``_ObservationHub/_renotify(_:generation:)``).
struct _SnapshotKey: Hashable, Sendable {
    /// The store's ``_Publication``.
    let publication: ObjectIdentifier
    let generation: UInt64
}

/// The generation of a store's published state, which every publish of a
/// versioned state steps (under the store's lock): what a thread's observed
/// reads are checked against.
@usableFromInline
internal final class _Publication: @unchecked Sendable {
    // NB: `@unchecked Sendable`: an atomic and a constant.
    @usableFromInline let generation = ManagedAtomic<UInt64>(0)
    /// The snapshot key path of the latest generation read, made once per
    /// generation (a key path with an argument costs a run-time
    /// instantiation). Guarded by the store's lock.
    var snapshotKeyPath: (generation: UInt64, keyPath: KeyPath<_ObservationHub, Int>)?
    @usableFromInline init() {}

    /// The key path every tracked read of the state at `generation`
    /// registers. Must hold the store's lock.
    func snapshotKeyPath(_ generation: UInt64) -> KeyPath<_ObservationHub, Int> {
        if let cached = snapshotKeyPath, cached.generation == generation { return cached.keyPath }
        let keyPath = \_ObservationHub[_snapshot: _SnapshotKey(publication: ObjectIdentifier(self), generation: generation)]
        snapshotKeyPath = (generation, keyPath)
        return keyPath
    }
}

/// The argument of a registration's key path. Observation keeps the key
/// path (and so the token) for as long as a tracking holds the access or a
/// registrar observes it; the hub keeps the key path weakly. When
/// Observation releases it (the tracking fired or was cancelled, or the
/// read happened outside any tracking and nobody kept it), the token ends
/// and unregisters: the hub holds exactly what Observation observes, with
/// no sweep and no growth from reads made outside a tracking.
@usableFromInline
internal final class _ObservationToken: Hashable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: immutable.
    let id: Int

    init(id: Int) { self.id = id }

    deinit { _ObservationHub.shared._unregister(id) }

    @usableFromInline static func == (lhs: _ObservationToken, rhs: _ObservationToken) -> Bool { lhs.id == rhs.id }
    @usableFromInline func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// Counters of the per-node Observation registrations, for tests.
@_spi(Testing)
public enum _ObservationStatistics {
    /// The number of (node, read) registrations on `nodes` that some
    /// Observation tracking or registrar still holds.
    public static func liveRegistrations(on nodes: Set<NodeID>) -> Int {
        _ObservationHub.shared._liveRegistrations(on: nodes)
    }

    /// The number of asynchronous re-notifications of late reads not yet
    /// delivered.
    public static var pendingRenotifications: Int {
        _ObservationHub.shared.pendingRenotifications.load(ordering: .acquiring)
    }
}

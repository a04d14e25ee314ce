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
// and drains. Whether anyone observes a registration is read off its key
// path's reference count: see `_Entry`.

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
    /// The registrations, as readers of their dependency.
    var index = _ReaderIndex()
    /// The registrations by id.
    var entries: [Int: _Entry] = [:]
    /// The registration of each dependency, by id.
    var byDependency: [_Dependency: Int] = [:]
    var nextID = 0
    /// The number of registrations: a publish with none skips the lock.
    let registrationCount = ManagedAtomic<Int>(0)
    /// The number of registrations past which the next registration first
    /// drops the dormant ones (see `_Entry`).
    var sweepThreshold = 1_024

    /// One registration: a dependency and its key path,
    /// `\_ObservationHub[_read: id]`.
    ///
    /// The hub holds the key path; Observation holds it too for as long as
    /// a tracking holds the access or its registrar observes it, and lets it
    /// go when the tracking fires or is cancelled. So a key path the hub
    /// holds alone (`isKnownUniquelyReferenced`, checked under the lock,
    /// through which alone anyone else can get it) is *dormant*: nobody
    /// observes it, a publish skips it, and it is kept only so that the next
    /// read of its dependency reuses it (a key path with an argument costs
    /// a run-time instantiation). Dormant registrations are dropped in bulk
    /// when the registrations double (reads outside any tracking, which the
    /// hub cannot tell from tracked ones, leave only dormant ones), so
    /// memory stays within twice what Observation holds plus a constant.
    struct _Entry {
        let dependency: _Dependency
        var keyPath: KeyPath<_ObservationHub, Int>
        /// The store state its latest read came from (its ``_Publication``
        /// and generation), and whether that read ran on the main thread.
        var publication: ObjectIdentifier?
        var generation: UInt64 = 0
        var onMain = false
    }

    init() {}

    /// The member an observed read stands for. Never read for its value:
    /// only its key path, `\_ObservationHub[_read: id]`, matters.
    subscript(_read id: Int) -> Int { id }

    // MARK: Reads

    /// Registers an Observation access for a read of `kind` on `node`.
    ///
    /// - Complexity: O(1) amortized: a lock and a dictionary lookup; for the
    ///   first read of a dependency since its registration was dropped, a
    ///   key path (one allocation).
    @usableFromInline
    func access(_ node: NodeID, _ kind: _ReadKind, _ context: _TrackingContext) {
        let dependency = _Dependency(node: node, kind: kind)
        let publication = context.observedPublication.map(ObjectIdentifier.init)
        let onMain = _isMainThread
        lock.lock()
        let keyPath: KeyPath<_ObservationHub, Int>
        if let id = byDependency[dependency] {
            entries[id]!.publication = publication
            entries[id]!.generation = context.observedGeneration
            entries[id]!.onMain = onMain
            keyPath = entries[id]!.keyPath
        } else {
            if entries.count >= sweepThreshold { _dropDormant() }
            nextID += 1
            let id = nextID
            keyPath = \_ObservationHub[_read: id]
            byDependency[dependency] = id
            entries[id] = _Entry(
                dependency: dependency, keyPath: keyPath,
                publication: publication, generation: context.observedGeneration, onMain: onMain)
            index.insert(dependency, reader: id)
            registrationCount.wrappingIncrement(ordering: .relaxed)
        }
        lock.unlock()
        // NB: outside the lock: the registrar takes its own.
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

    /// Drops the registrations nobody observes, and sets the next sweep at
    /// twice the registrations kept. Must hold the lock.
    ///
    /// - Complexity: O(registrations), amortized O(1) per registration.
    func _dropDormant() {
        for id in Array(entries.keys) where isKnownUniquelyReferenced(&entries[id]!.keyPath) {
            let entry = entries.removeValue(forKey: id)!
            byDependency[entry.dependency] = nil
            index.remove(entry.dependency, reader: id)
        }
        registrationCount.store(entries.count, ordering: .relaxed)
        sweepThreshold = Swift.max(1_024, 2 * entries.count)
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
        guard registrationCount.load(ordering: .relaxed) > 0, !writes.isEmpty else { return }
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
                // NB: a dormant registration has nobody to tell.
                guard !isKnownUniquelyReferenced(&entries[id]!.keyPath) else { continue }
                let entry = entries[id]!
                affected.append(entry.keyPath)
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
        for id in recent where entries[id] != nil && !isKnownUniquelyReferenced(&entries[id]!.keyPath) {
            let entry = entries[id]!
            if entry.onMain { inFlightOnMain.append(entry.keyPath) } else { inFlight.append(entry.keyPath) }
        }
        lock.unlock()
        _renotify(inFlight, onMain: false)
        _renotify(inFlightOnMain, onMain: true)
    }

    /// The number of registrations on `nodes` that Observation holds (tests).
    func _liveRegistrations(on nodes: Set<NodeID>) -> Int {
        lock.withLock {
            var live = 0
            for id in Array(entries.keys) where nodes.contains(entries[id]!.dependency.node) {
                if !isKnownUniquelyReferenced(&entries[id]!.keyPath) { live += 1 }
            }
            return live
        }
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

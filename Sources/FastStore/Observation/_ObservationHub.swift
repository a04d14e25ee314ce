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
    @usableFromInline let registrationCount = ManagedAtomic<Int>(0)

    /// Whether any registration is live or dormant: when not, a drain's
    /// writes have nobody to tell, and the drain does not call ``publish``
    /// (whose arguments it would retain for the call).
    @inlinable var hasRegistrations: Bool { registrationCount.load(ordering: .relaxed) > 0 }
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
        let onMain = Self._isMainThread
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
            _renotify([.lateSnapshot(\_ObservationHub[_snapshot: key])], onMain: onMain)
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

    /// One key to tell again, and how to know whether someone still waits
    /// for it.
    enum _Renotification {
        /// The key of a replaced state, kept in `replacedSnapshots` under
        /// `token`: the very instance its trackings hold, so it is still
        /// awaited while anyone else holds it.
        case snapshot(token: Int)
        /// A snapshot key rebuilt for a late read: not the trackings'
        /// instance, so it is told at every attempt (no new tracking
        /// registers an old generation's key: telling it again costs a
        /// lookup).
        case lateSnapshot(KeyPath<_ObservationHub, Int>)
        /// A per-node registration: still awaited while its latest read is
        /// the one from `generation` and someone holds its key.
        case entry(id: Int, generation: UInt64)
    }

    /// The keys of replaced states awaiting a re-notification, by token.
    /// Guarded by `lock`.
    var replacedSnapshots: [Int: KeyPath<_ObservationHub, Int>] = [:]
    var nextSnapshotToken = 0

    /// The re-notification attempts, a millisecond apart at first and
    /// doubling: a tracking whose thread is descheduled between its read and
    /// the end of its closure (a loaded machine) is still told.
    static let renotificationAttempts = 6

    /// Tells Observation again, asynchronously, about `items`.
    ///
    /// Two reads need it. A *late* read: a publish came after the thread's
    /// `state` read, and the thread registered reads of the older state it
    /// got after the publish looked for observers, so the publish could not
    /// tell it (the item is then the key every tracked read of that state
    /// registered). An *in-flight* read: a publish told a registration made
    /// from the state just before it that is still held after the
    /// notification: held by a tracking that had not installed its
    /// observers yet (Observation installs them only when the tracked
    /// closure returns), as a told tracking lets its key paths go.
    ///
    /// NB: asynchronously, so that the tracking is installed by then: on the
    /// main queue when the read ran on the main thread (SwiftUI installs
    /// its tracking in the same turn of the main queue), else on a global
    /// queue a millisecond later; then again, up to
    /// ``renotificationAttempts`` times with doubling delays, for the items
    /// still awaited. A tracking told twice is invalidated once more than
    /// it needed, at worst.
    func _renotify(_ items: [_Renotification], onMain: Bool, attempt: Int = 0) {
        guard !items.isEmpty else { return }
        if attempt == 0 { pendingRenotifications.wrappingIncrement(ordering: .relaxed) }
        let box = _UncheckedSendable((self, items))
        let notify: @Sendable () -> Void = {
            let (hub, items) = box.value
            hub._fire(items)
            hub.lock.lock()
            let awaited = attempt + 1 < Self.renotificationAttempts ? items.filter { hub._isAwaited($0) } : []
            for case .snapshot(let token) in items where !awaited.contains(where: {
                if case .snapshot(token) = $0 { true } else { false }
            }) {
                hub.replacedSnapshots[token] = nil
            }
            hub.lock.unlock()
            if awaited.isEmpty {
                hub.pendingRenotifications.wrappingDecrement(ordering: .releasing)
            } else {
                hub._renotify(awaited, onMain: onMain, attempt: attempt + 1)
            }
        }
        #if canImport(Dispatch)
        if onMain && attempt == 0 {
            DispatchQueue.main.async(execute: notify)
        } else {
            let delay = DispatchTime.now() + .milliseconds(1 << (onMain ? attempt - 1 : attempt))
            (onMain ? DispatchQueue.main : DispatchQueue.global()).asyncAfter(deadline: delay, execute: notify)
        }
        #else
        _fire(items)
        pendingRenotifications.wrappingDecrement(ordering: .releasing)
        #endif
    }

    /// Calls `willSet` and `didSet` for the keys of `items`.
    func _fire(_ items: [_Renotification]) {
        var keyPaths: [KeyPath<_ObservationHub, Int>] = []
        lock.lock()
        for item in items {
            switch item {
            case .snapshot(let token): if let keyPath = replacedSnapshots[token] { keyPaths.append(keyPath) }
            case .lateSnapshot(let keyPath): keyPaths.append(keyPath)
            case .entry(let id, _): if let entry = entries[id] { keyPaths.append(entry.keyPath) }
            }
        }
        lock.unlock()
        for keyPath in keyPaths { registrar.willSet(self, keyPath: keyPath) }
        for keyPath in keyPaths { registrar.didSet(self, keyPath: keyPath) }
    }

    /// Whether someone may still wait for `item`. Must hold the lock.
    func _isAwaited(_ item: _Renotification) -> Bool {
        switch item {
        case .lateSnapshot:
            return true
        case .snapshot(let token):
            guard replacedSnapshots[token] != nil else { return false }
            return !isKnownUniquelyReferenced(&replacedSnapshots[token]!)
        case .entry(let id, let generation):
            guard entries[id] != nil, entries[id]!.generation == generation else { return false }
            return !isKnownUniquelyReferenced(&entries[id]!.keyPath)
        }
    }

    /// Tells the trackings that read a replaced state (a publish of plain
    /// state, or of a replaced root), and again, asynchronously, those that
    /// still hold its key afterwards: see ``_renotify(_:onMain:)``.
    @usableFromInline
    func _notifyReplaced(_ snapshot: inout _Publication.Snapshot?) {
        guard var replaced = snapshot else { return }
        snapshot = nil
        registrar.willSet(self, keyPath: replaced.keyPath)
        registrar.didSet(self, keyPath: replaced.keyPath)
        // NB: a told tracking let the key go; only this copy is left unless
        // one was not installed yet (or a read of that state has not
        // registered yet: it is told once more than it needed).
        guard !isKnownUniquelyReferenced(&replaced.keyPath) else { return }
        lock.lock()
        nextSnapshotToken += 1
        let token = nextSnapshotToken
        replacedSnapshots[token] = replaced.keyPath
        let (readOnMain, readElsewhere) = (replaced.readOnMain, replaced.readElsewhere)
        _ = consume replaced
        lock.unlock()
        if readElsewhere { _renotify([.snapshot(token: token)], onMain: false) }
        if readOnMain { _renotify([.snapshot(token: token)], onMain: true) }
    }

    /// Whether the calling thread is the main thread (always `false` where
    /// that cannot be told cheaply: the re-notification then takes the
    /// global queue).
    @usableFromInline
    static var _isMainThread: Bool {
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
        guard hasRegistrations, !writes.isEmpty else { return }
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
        var inFlight: [_Renotification] = []
        var inFlightOnMain: [_Renotification] = []
        lock.lock()
        for id in recent where entries[id] != nil && !isKnownUniquelyReferenced(&entries[id]!.keyPath) {
            let entry = entries[id]!
            let item = _Renotification.entry(id: id, generation: entry.generation)
            if entry.onMain { inFlightOnMain.append(item) } else { inFlight.append(item) }
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

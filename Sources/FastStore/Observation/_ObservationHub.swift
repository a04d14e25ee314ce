import Atomics
#if canImport(Darwin)
import Darwin
#endif
import Observation

// Fine-grained Observation of versioned state.
//
// A view that reads `store.state.rows[id: x].title` inside
// `withObservationTracking` (what SwiftUI does around `body`) makes one
// *look* (`_Look`): the `state` read begins it, and each versioned read
// after it on that thread (`(root, field rows)`, `(rows, element x)`) is
// filed under it in the hub's reader index and accesses the look with
// Observation. A publish collects the looks its drain's writes affect,
// with the trigger rule (`_ReaderIndex.collect`), and calls `willSet` /
// `didSet` on each one's registrar. No macro on user types: the reads are
// the ones the versioned types already report to `_Tracking`.
//
// Observation cannot say whether a tracking is active on the thread, so
// every versioned read made on a thread that read a versioned store's
// `state` (the thread's "observed reads" flag), outside selectors and
// drains, is filed. Whether anyone observes a look is read off its key
// path's reference count: see `_Look`.

/// The looks of every store (node identities are process-wide, so a
/// node's observers are found whichever store publishes its write).
@usableFromInline
internal final class _ObservationHub: Observable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: every mutable field is guarded by `lock`;
    // the registrars are thread-safe.

    @usableFromInline static let shared = _ObservationHub()

    /// The registrar of replaced plain states' keys (``_Publication``).
    @usableFromInline let registrar = ObservationRegistrar()
    let lock = _Lock()
    /// The live looks' dependencies, by look id.
    @exclusivity(unchecked) var index = _ReaderIndex()
    /// Every look made, by id.
    @exclusivity(unchecked) var looks: [_Look] = []
    /// The number of live looks (filed in the index).
    @exclusivity(unchecked) var liveCount = 0
    /// Looks told or found dormant, to reuse once nobody holds their key
    /// path, oldest first.
    @exclusivity(unchecked) var retired: [Int] = []
    @exclusivity(unchecked) var retiredStart = 0
    /// The dependencies past which a look nobody observes is retired
    /// before it files another (see `access`).
    static var dormantDependencyLimit: Int { 4_096 }
    /// The dependencies filed under live looks, and the number past which
    /// the next filing first retires the dormant looks.
    @exclusivity(unchecked) var filedCount = 0
    @exclusivity(unchecked) var filedSweepThreshold = 1 << 16
    /// How many retired looks were found lost by Observation and renewed
    /// (see `_reusable`).
    @exclusivity(unchecked) var lostLooks = 0
    /// A publish's affected look ids (scratch, kept between publishes).
    @exclusivity(unchecked) var collected: [Int] = []
    /// The number of live looks: a publish with none skips the lock.
    /// (An `_OwnedAtomic`.)
    @usableFromInline let registrationCount = _OwnedAtomic<Int>(0)

    /// Whether any look is live: when not, a drain's writes have nobody to
    /// tell, and the drain does not call ``publish`` (whose arguments it
    /// would retain for the call).
    @inlinable var hasRegistrations: Bool { registrationCount.load(ordering: .relaxed) > 0 }
    /// The number of live looks past which the next look first retires the
    /// dormant ones.
    @exclusivity(unchecked) var sweepThreshold = 1_024

    // The re-notifications (`_ObservationHub+Renotify.swift`):
    /// The keys of replaced plain states awaiting a re-notification, by
    /// token.
    var replacedSnapshots: [Int: KeyPath<_ObservationHub, Int>] = [:]
    var nextSnapshotToken = 0

    init() {}

    // MARK: Reads

    /// Begins a look for a tracked read of the state `publication`'s store
    /// published as `generation`, made current on the thread, and accesses
    /// it with Observation: a publish that replaces the root tells it.
    ///
    /// - Complexity: O(1) amortized: a lock and a reused look (a new one,
    ///   four allocations, when none is free).
    @usableFromInline
    func beginLook(_ context: _ObservedThread, _ publication: _Publication, generation: UInt64) {
        let onMain = Self._isMainThread
        lock.lock()
        // NB: the thread's previous look, if nobody observes it, is the
        // first to reuse (reads outside any tracking leave one per read).
        if let previous = context.look, previous.isLive, previous.epoch == context.lookEpoch,
           isKnownUniquelyReferenced(&previous.keyPath) {
            _retire(previous)
        }
        let look = _begin(publication, generation, onMain)
        context.look = look
        context.lookEpoch = look.epoch
        let registrar = look.registrar
        let keyPath = look.keyPath
        let epoch = look.epoch
        lock.unlock()
        registrar.access(look, keyPath: keyPath)
        // NB: after the look is accessed. The thread's earlier `state`
        // reads first (this store's previous one among them): a value of
        // one may be read after this read, and is then filed under this
        // look and checked against this read's generation.
        var retell = _checkEarlierReads(context, current: look, epoch: epoch)
        _recordStateRead(context, publication, generation, look, epoch)
        // NB: after the look is live. A publish that replaced the root
        // after this thread's `state` read and told the store's looks
        // before this one was live has stepped the generation first: it is
        // seen here.
        if publication.generation.load(ordering: .sequentiallyConsistent) != generation {
            context.observedPublication = nil
            retell = true
        }
        if retell { _renotify([.look(id: look.id, epoch: epoch, publication: publication)], onMain: onMain) }
    }

    /// Files a read of `kind` on `node` under the thread's look (a new one
    /// when it has none live), and accesses the look with Observation.
    ///
    /// - Complexity: O(1) amortized: a lock, a set insertion and, the first
    ///   time the look reads the dependency, an index insertion.
    @usableFromInline
    func access(_ node: NodeID, _ kind: _ReadKind, _ context: _ObservedThread) {
        let dependency = _Dependency(node: node, kind: kind)
        lock.lock()
        let look: _Look
        if let current = context.look, current.isLive, current.epoch == context.lookEpoch,
           current.dependencies.count < Self.dormantDependencyLimit || !isKnownUniquelyReferenced(&current.keyPath) {
            look = current
        } else {
            // NB: a look nobody observes yet that has filed many reads (a
            // thread that read `state` once, then reads values no tracking
            // watches) goes before this read is filed: no tracking holds
            // it, and the one this read may be part of accesses the new
            // look below.
            if let current = context.look, current.isLive, current.epoch == context.lookEpoch { _retire(current) }
            // NB: no `state` read began it (the thread's look was told or
            // retired since): a look of its own, checked as the thread's.
            look = _begin(context.observedPublication, context.observedGeneration, Self._isMainThread)
            context.look = look
            context.lookEpoch = look.epoch
        }
        if look.insert(dependency) {
            index.insert(dependency, reader: look.id)
            filedCount += 1
            look.publication?.filedDependencies += 1
        }
        let registrar = look.registrar
        let keyPath = look.keyPath
        let onMain = look.onMain
        let epoch = look.epoch
        let publication = look.publication
        // NB: reads outside any tracking on a thread that once read a
        // store's `state` are filed too: past twice the dependencies kept at
        // the last sweep, the dormant looks go (the current one included,
        // when nobody observes it: the thread's next read begins another).
        if filedCount >= filedSweepThreshold { _retireDormant() }
        lock.unlock()
        registrar.access(look, keyPath: keyPath)
        // NB: after the filing. A publish that wrote after this thread's
        // `state` read and collected its looks before this filing has
        // stepped the generation first: it is seen here; so is one after
        // an earlier `state` read whose values this read may be of.
        var retell = _checkEarlierReads(context, current: look, epoch: epoch)
        if let observed = context.observedPublication,
           observed.generation.load(ordering: .sequentiallyConsistent) != context.observedGeneration {
            context.observedPublication = nil
            retell = true
        }
        if retell { _renotify([.look(id: look.id, epoch: epoch, publication: publication)], onMain: onMain) }
    }

    /// A live look: a retired one nobody holds, else a new one. Must hold
    /// the lock.
    func _begin(_ publication: _Publication?, _ generation: UInt64, _ onMain: Bool) -> _Look {
        if liveCount >= sweepThreshold { _retireDormant() }
        let look = _reusable() ?? _make()
        look.epoch &+= 1
        look.isLive = true
        look.publication = publication
        look.generation = generation
        look.onMain = onMain
        liveCount += 1
        registrationCount.store(liveCount, ordering: .relaxed)
        return look
    }

    func _make() -> _Look {
        let look = _Look(id: looks.count)
        looks.append(look)
        return look
    }

    /// The oldest retired look whose key path nobody else holds, if one of
    /// the first two is. Must hold the lock.
    ///
    /// A told look is let go by its trackings at once, or, by one that had
    /// not installed its observers yet, within the re-notifications. One
    /// still held a second after this queue first found it held was lost by
    /// Observation: a
    /// tracking told while it installs its observers on several subjects is
    /// cancelled before it records them, and they stay registered. Such a
    /// look gets a new registrar and key path (the old registrar goes,
    /// with what it held) and is reused.
    ///
    /// - Complexity: O(1) amortized.
    func _reusable() -> _Look? {
        var tries = 0
        var now: UInt64 = 0
        while retiredStart < retired.count && tries < 2 {
            let look = looks[retired[retiredStart]]
            retiredStart += 1
            if isKnownUniquelyReferenced(&look.keyPath) {
                _compactRetired()
                return look
            }
            if now == 0 { now = _monotonicNanoseconds() }
            if look.retiredAt == 0 {
                look.retiredAt = now
            } else if now &- look.retiredAt > 1_000_000_000 {
                look.registrar = ObservationRegistrar()
                look.keyPath = \_Look[_look: look.id]
                lostLooks += 1
                _compactRetired()
                return look
            }
            // NB: still held (a tracking that was told and has not let go
            // yet): to the back of the queue.
            retired.append(look.id)
            tries += 1
        }
        _compactRetired()
        return nil
    }

    func _compactRetired() {
        if retiredStart > 64 && retiredStart * 2 > retired.count {
            retired.removeFirst(retiredStart)
            retiredStart = 0
        }
    }

    /// Retires `look`, adding it to `told` first when someone observes it
    /// (a dormant look has nobody to tell). Must hold the lock.
    func _retire(_ look: _Look, telling told: inout [_Told]) {
        if !isKnownUniquelyReferenced(&look.keyPath) { told.append(_Told(look)) }
        _retire(look)
    }

    /// Takes `look`'s dependencies out of the index and queues it for
    /// reuse. Must hold the lock.
    ///
    /// - Complexity: O(its dependencies).
    func _retire(_ look: _Look) {
        guard look.isLive else { return }
        for dependency in look.dependencies { index.remove(dependency, reader: look.id) }
        filedCount -= look.dependencies.count
        look.publication?.filedDependencies -= look.dependencies.count
        look.removeAllDependencies()
        look.retiredAt = 0
        look.isLive = false
        liveCount -= 1
        registrationCount.store(liveCount, ordering: .relaxed)
        retired.append(look.id)
    }

    /// Retires the live looks nobody observes, and sets the next sweep at
    /// twice the looks kept. Must hold the lock.
    ///
    /// - Complexity: O(looks), amortized O(1) per look begun.
    func _retireDormant() {
        for look in looks where look.isLive && isKnownUniquelyReferenced(&look.keyPath) {
            _retire(look)
        }
        sweepThreshold = Swift.max(1_024, 2 * liveCount)
        filedSweepThreshold = Swift.max(1 << 16, 2 * filedCount)
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

    /// Tells Observation about a drain's writes: calls `willSet` and `didSet` once on every
    /// observed look a write affects (the consumers' trigger rule), and
    /// retires it (a told tracking is done); again, asynchronously, for those
    /// some tracking still holds after being told (see
    /// ``_renotify(_:onMain:)``). Looks nobody observes are retired untold.
    ///
    /// Called after the new state is published, like the store's own
    /// notification, so an `onChange` that reads the store sees it.
    ///
    /// - Complexity: O(1) with no live look; else O(writes + affected
    ///   looks × their dependencies).
    @usableFromInline
    func publish(_ writes: [(node: NodeID, kind: _WriteKind)]) {
        guard hasRegistrations, !writes.isEmpty else { return }
        lock.lock()
        collected._removeAllKeepingCapacity()
        for write in writes { index.collect(write.node, write.kind, into: &collected) }
        var told: [_Told] = []
        _ReaderIndex.forEachDistinct(&collected) { _retire(looks[$0], telling: &told) }
        lock.unlock()
        _tell(&told)
    }

    /// Tells every live look of `publication`'s store: a publish that
    /// replaced the root (the drain's writes do not account for the step),
    /// so every read of the store's state may have changed.
    ///
    /// - Complexity: O(looks).
    @usableFromInline
    func publishReplacement(from publication: _Publication) {
        guard hasRegistrations else { return }
        lock.lock()
        var told: [_Told] = []
        for look in looks where look.isLive && look.publication === publication {
            _retire(look, telling: &told)
        }
        lock.unlock()
        _tell(&told)
    }

    /// A look to tell, its key path and epoch, read under the lock (the hub
    /// checks the key path's references in place, under the lock only).
    struct _Told {
        let look: _Look
        let registrar: ObservationRegistrar
        var keyPath: KeyPath<_Look, Int>?
        let epoch: UInt64
        init(_ look: _Look) {
            self.look = look
            registrar = look.registrar
            keyPath = look.keyPath
            epoch = look.epoch
        }
    }

    /// Calls `willSet` and `didSet` on the looks' registrars, then
    /// re-notifies those still held: held by a tracking that was not told,
    /// one whose observers were not installed yet (a told tracking lets its
    /// key paths go).
    func _tell(_ told: inout [_Told]) {
        guard !told.isEmpty else { return }
        // NB: read in place (a `for item in told` copied each item: its
        // look, registrar and key path retained and released per call).
        told.withUnsafeBufferPointer { told in
            for k in told.indices { told[k].registrar.willSet(told[k].look, keyPath: told[k].keyPath!) }
            for k in told.indices { told[k].registrar.didSet(told[k].look, keyPath: told[k].keyPath!) }
        }
        // NB: this function's references go first, so that a key path only
        // its look holds is found so.
        for k in told.indices { told[k].keyPath = nil }
        var inFlight: [_Renotification] = []
        var inFlightOnMain: [_Renotification] = []
        lock.lock()
        for k in told.indices {
            let look = told[k].look
            guard look.epoch == told[k].epoch, !isKnownUniquelyReferenced(&look.keyPath) else { continue }
            let renotification = _Renotification.look(id: look.id, epoch: told[k].epoch, publication: look.publication)
            if look.onMain { inFlightOnMain.append(renotification) } else { inFlight.append(renotification) }
        }
        lock.unlock()
        told = []
        _renotify(inFlight, onMain: false)
        _renotify(inFlightOnMain, onMain: true)
    }

    /// The number of live looks' dependencies on `nodes` that some
    /// Observation tracking holds (tests).
    func _liveRegistrations(on nodes: Set<NodeID>) -> Int {
        lock.withLock {
            var count = 0
            for look in looks where look.isLive && !isKnownUniquelyReferenced(&look.keyPath) {
                count += look.dependencies.filter { nodes.contains($0.node) }.count
            }
            return count
        }
    }
}

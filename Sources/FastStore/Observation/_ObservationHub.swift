import Atomics
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
    func access(_ node: NodeID, _ kind: _ReadKind) {
        let dependency = _Dependency(node: node, kind: kind)
        lock.lock()
        let keyPath: KeyPath<_ObservationHub, Int>
        if let id = byDependency[dependency], let live = entries[id]?.keyPath {
            keyPath = live
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
            entries[id] = _Entry(dependency: dependency, keyPath: made)
            index.insert(dependency, reader: id)
            keyPath = made
        }
        lock.unlock()
        // NB: outside the lock: the registrar takes its own, and releasing
        // the last reference to a key path ends a token, which takes ours.
        registrar.access(self, keyPath: keyPath)
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

    /// Tells Observation about a drain's writes: calls `willSet` and
    /// `didSet` for every live registration a write affects (the consumers'
    /// trigger rule), once each.
    ///
    /// Called after the new state is published, like the store's own
    /// notification, so an `onChange` that reads the store sees it.
    ///
    /// - Complexity: O(1) with no live registration; else O(writes +
    ///   affected registrations).
    @usableFromInline
    func publish(_ writes: [(node: NodeID, kind: _WriteKind)]) {
        guard liveCount.load(ordering: .relaxed) > 0, !writes.isEmpty else { return }
        var ids: [Int] = []
        var affected: [KeyPath<_ObservationHub, Int>] = []
        lock.lock()
        for write in writes { index.collect(write.node, write.kind, into: &ids) }
        if !ids.isEmpty {
            if ids.count > 1 { ids.sort() }
            var last = -1
            for id in ids where id != last {
                last = id
                if let keyPath = entries[id]?.keyPath { affected.append(keyPath) }
            }
        }
        lock.unlock()
        for keyPath in affected { registrar.willSet(self, keyPath: keyPath) }
        for keyPath in affected { registrar.didSet(self, keyPath: keyPath) }
    }

    /// The number of live registrations on `nodes` (tests).
    func _liveRegistrations(on nodes: Set<NodeID>) -> Int {
        lock.withLock { entries.values.count { nodes.contains($0.dependency.node) } }
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
}

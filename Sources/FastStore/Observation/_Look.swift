#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Observation

/// One Observation subject per tracked read of a versioned store's `state`:
/// the reads a thread makes from that state register their dependencies
/// under the look, and the look once with Observation.
///
/// A view's `body` that reads `store.state.rows[id: x].title` makes one
/// look: the `state` read begins it, `(root, field rows)` and
/// `(rows, element x)` are filed under it in the hub's reader index, and
/// the tracking accesses the look's one key path (the first access adds it
/// to the tracking, the others find it there). A publish that writes one
/// of those dependencies tells the look's registrar: one subject and one
/// key path per tracking, as an `@Observable` model read once.
///
/// The key path is the look's own instance, made once with the look and
/// kept when the look is reused: Observation holds it while a tracking
/// holds the access, so a look whose key path only the look holds
/// (`isKnownUniquelyReferenced`, under the hub's lock) is *dormant*, and
/// may be retired and reused.
///
/// Every mutable field is guarded by the hub's lock.
@usableFromInline
internal final class _Look: Observable, @unchecked Sendable {
    // NB: `@unchecked Sendable`: the fields are guarded by the hub's lock;
    // the registrar is thread-safe.

    /// The look's slot in the hub (`_ObservationHub.looks`), and its key
    /// path's argument.
    let id: Int
    /// Replaced, with the key path, when Observation lost a tracking's
    /// observers on it (see `_ObservationHub._reusable`). Read under the
    /// hub's lock, or from a copy taken under it.
    @exclusivity(unchecked) var registrar = ObservationRegistrar()
    /// `\_Look[_look: id]`, this instance only (see the type's notes).
    @exclusivity(unchecked) var keyPath: KeyPath<_Look, Int>
    /// Stepped each time the look is reused: a re-notification or a
    /// thread's current look names the use it meant.
    @exclusivity(unchecked) var epoch: UInt64 = 0
    /// Whether its dependencies are filed in the hub's index: set when it
    /// begins, cleared when it is told or retired.
    @exclusivity(unchecked) var isLive = false
    /// What it has filed in the hub's index (a look reads a few: a
    /// linear search finds a repeat until ``_dependencySetLimit``, a set
    /// past it).
    @exclusivity(unchecked) var dependencies: [_Dependency] = []
    @exclusivity(unchecked) var dependencySet: Set<_Dependency>? = nil
    static var _dependencySetLimit: Int { 16 }
    /// The store whose `state` read began it (its ``_Publication``), the
    /// generation it read, and whether that read ran on the main thread.
    @exclusivity(unchecked) var publication: _Publication?
    @exclusivity(unchecked) var generation: UInt64 = 0
    @exclusivity(unchecked) var onMain = false

    init(id: Int) {
        self.id = id
        keyPath = \_Look[_look: id]
    }

    /// Adds `dependency` unless the look has it; whether it was added.
    ///
    /// - Complexity: O(1) amortized (O(``_dependencySetLimit``) while few).
    func insert(_ dependency: _Dependency) -> Bool {
        if dependencySet == nil {
            if dependencies.contains(dependency) { return false }
            dependencies.append(dependency)
            if dependencies.count > Self._dependencySetLimit { dependencySet = Set(dependencies) }
            return true
        }
        guard dependencySet!.insert(dependency).inserted else { return false }
        dependencies.append(dependency)
        return true
    }

    /// When the retired queue first found it still held (monotonic
    /// nanoseconds; 0 until then): a retired look some tracking still holds
    /// long after it was told was lost by Observation (see
    /// `_ObservationHub._reusable`).
    @exclusivity(unchecked) var retiredAt: UInt64 = 0

    /// Forgets every dependency, keeping a small buffer.
    func removeAllDependencies() {
        dependencies.removeAll(keepingCapacity: dependencies.count <= Self._dependencySetLimit)
        dependencySet = nil
    }

    /// The member a look stands for. Never read for its value: only its key
    /// path matters.
    subscript(_look id: Int) -> Int { id }
}

/// The monotonic clock, in nanoseconds.
func _monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

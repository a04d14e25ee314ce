import Atomics

// What the wake-up hub shares with its consumers and its store: the links,
// anchors and notices a consumer keeps, the owner the store's subscriber
// holds, the test fault and the test hook.

/// A consumer's connection through a hub, kept by the consumer.
@usableFromInline
internal struct _HubLink<Root> {
    @usableFromInline weak var hub: _WakeUpHub<Root>?
    @usableFromInline let attachment: UInt64
    @usableFromInline init(hub: _WakeUpHub<Root>, attachment: UInt64) {
        self.hub = hub
        self.attachment = attachment
    }
}

/// The drains a hub hands a consumer it wakes: the steps from the hub's
/// previous root to the delivered state's.
@usableFromInline
internal enum _HubProof {
    /// The one drain that made the step, delivering it: its changes,
    /// unretained (the drain holds them while it delivers). Put in an
    /// array only by a consumer that looks them up in its own index.
    case drain(Unmanaged<_DrainChanges>)
    /// The drains read from the change log: a main-queue delivery, which
    /// coalesces drains, or one whose drain does not start at the hub's
    /// last root (a new hub's first delivery may span two drains).
    case spans([_DrainChanges])
}

/// The hub and root of a consumer's last consume when a hub delivered it:
/// while its last root is still this one, the hub's proof holds (see
/// ``_WakeUpHub``).
@usableFromInline
internal struct _HubAnchor: Equatable {
    @usableFromInline let hub: ObjectIdentifier
    @usableFromInline let root: _RootVersion
    @inlinable init(hub: ObjectIdentifier, root: _RootVersion) {
        self.hub = hub
        self.root = root
    }
}

/// What changed in a connected consumer's registry since its hubs last
/// looked: dependencies that may have gained or lost their last reader,
/// and whether it may have gained or lost unconditional selectors. Noted
/// under the consumer's lock, only while `isTracking` (the consumer is
/// connected through a hub).
@usableFromInline
internal struct _HubNotices {
    @usableFromInline var isTracking = false
    @usableFromInline var isPending = false
    @usableFromInline var everything = false
    @usableFromInline var dependencies: [_Dependency] = []

    @inlinable init() {}

    @inlinable
    mutating func note(_ dependency: _Dependency) {
        guard isTracking else { return }
        dependencies.append(dependency)
        isPending = true
    }

    @inlinable
    mutating func noteUnconditional() {
        if isTracking { isPending = true }
    }

    @inlinable
    mutating func noteEverything() {
        guard isTracking else { return }
        everything = true
        isPending = true
    }

    /// Takes the notes, leaving none.
    @inlinable
    mutating func take() -> (dependencies: [_Dependency], everything: Bool) {
        let taken = (dependencies, everything)
        dependencies = []
        everything = false
        isPending = false
        return taken
    }
}

/// A hub held by its store subscription: the store's subscriber entry owns
/// the hub, so a publish calls it through a strong reference, with no weak
/// load (and none of the slow retains and releases of an object that weak
/// references point at). A hub whose last connection goes cancels that
/// subscription (``_WakeUpHub/detach(_:)``), so it lives as long as its
/// store and one connection, or its connections' tokens.
@usableFromInline
internal final class _HubOwner<Root>: @unchecked Sendable {
    @usableFromInline let hub: _WakeUpHub<Root>
    /// `hub`, unretained: a hub is held weakly by its consumers' links, so
    /// it has a side table, and each retain or release of it takes the
    /// runtime's slow path.
    @usableFromInline let _unretainedHub: Unmanaged<_WakeUpHub<Root>>
    init(_ hub: _WakeUpHub<Root>) {
        self.hub = hub
        _unretainedHub = Unmanaged.passUnretained(hub)
    }

    /// Delivers a drain's publish to the hub (``_WakeUpHub/deliver(_:drained:)``),
    /// with no retain of it: this owner holds it.
    @inlinable
    func deliver(_ state: Root, drained changes: _DrainChanges?) {
        _unretainedHub._withUnsafeGuaranteedRef { $0.deliver(state, drained: changes) }
    }
    // NB: the store let go of its subscriber: it is being deallocated, or
    // the hub cancelled its subscription (then no connection is left, and
    // nothing is told).
    deinit { hub.storeDidGo() }
}

/// Fault injection for the tests that check the differential suites catch
/// a dropped wake-up.
@_spi(Testing)
public enum _WakeUpHubFaults {
    /// When not 0, the hubs delivering in this task skip each
    /// `dropEvery`-th consumer they would call (test builds only: the
    /// check is compiled under `FASTSTORE_INTERNAL_CHECKS`).
    @TaskLocal public static var dropEvery = 0
    static let counter = ManagedAtomic<Int>(0)

    /// Whether to drop this wake-up.
    static func drops() -> Bool {
        let every = dropEvery
        guard every > 0 else { return false }
        return counter.wrappingIncrementThenLoad(ordering: .relaxed) % every == 0
    }
}

extension Store {
    /// The number of consumers connected through this store's wake-up hub
    /// for `thread` (a test hook).
    @_spi(Testing)
    public func _connectedConsumerCount(on thread: NotificationThread = .drainThread) -> Int {
        (_StoreHubTable.wakeUps.existing(for: self, on: thread) as? _WakeUpHub<State>)?.connectedCount ?? 0
    }
}

/// Whether a test asked to drop this wake-up (see ``_WakeUpHubFaults``).
@usableFromInline
internal func _wakeUpDropped() -> Bool { _WakeUpHubFaults.drops() }

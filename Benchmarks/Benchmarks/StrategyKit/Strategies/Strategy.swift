import BenchCore
import Synchronization

/// One way of notifying consumers of state changes, measured on a
/// ``Workload``. Each strategy owns its store, its state and its consumers.
///
/// `dispatch` may be called from several threads at once (the `threads`
/// pattern); strategies serialize it as their store would.
public protocol BenchStrategy: AnyObject, Sendable {
    /// The name used on the command line and in the results (no spaces).
    static var name: String { get }
    /// One line for the docs and `--list`.
    static var summary: String { get }
    /// Whether consumers are called only when their selection's value
    /// changed (then every such strategy delivers exactly the same callbacks);
    /// `false` for Observation, which calls a consumer for any write to what
    /// it read.
    static var comparesValues: Bool { get }

    /// Builds the store and the initial state of `workload`, no consumers.
    /// A strategy may pick its state's shape for the workload (see
    /// ``Workload/idsArePositions``); the default is `Self(workload:)`.
    static func make(_ workload: Workload) -> any BenchStrategy
    /// Whether the strategy's store drains on the main thread, where the
    /// harness must then service the main queue while other threads
    /// dispatch (the threads pattern).
    static var drainsOnMainThread: Bool { get }

    /// Builds the store and the initial state of `workload`, no consumers.
    init(workload: Workload)
    /// Adds the workload's consumers (their first selection is not a callback).
    func attachConsumers()
    /// Dispatches `action`. Synchronous strategies notify before returning.
    func dispatch(_ action: WorkloadAction)
    /// Returns once every dispatched action is reduced and its consumers notified.
    func waitUntilIdle()
    /// Where the consumers' callbacks and selector runs are counted.
    var sink: Sink { get }
    /// A digest of the whole current state (``ContentDigest``), for the
    /// self-test; call it only when idle.
    func contentDigest() -> Int
}

extension BenchStrategy {
    public static var comparesValues: Bool { true }
    public static var drainsOnMainThread: Bool { false }
    public static func make(_ workload: Workload) -> any BenchStrategy { Self(workload: workload) }
    public func waitUntilIdle() {}
    /// Consumer callbacks delivered so far, and a checksum of the values delivered.
    public var delivered: Sink.Totals { sink.current }
    /// Selector runs so far (a full-copy consumer runs its selector twice).
    public var evaluations: Int { sink.evaluations }
}

/// Where consumer callbacks land: a count and a checksum of the new values
/// per kind of selection, so that the optimizer cannot drop the work and
/// strategies can be cross-checked against each other kind by kind.
public final class Sink: @unchecked Sendable {
    public struct Totals: Sendable, Equatable {
        public var callbacks: Int
        public var checksum: Int
        public init(callbacks: Int, checksum: Int) { self.callbacks = callbacks; self.checksum = checksum }
        public static let zero = Totals(callbacks: 0, checksum: 0)
        public static func + (a: Totals, b: Totals) -> Totals { Totals(callbacks: a.callbacks &+ b.callbacks, checksum: a.checksum &+ b.checksum) }
        public static func - (a: Totals, b: Totals) -> Totals { Totals(callbacks: a.callbacks &- b.callbacks, checksum: a.checksum &- b.checksum) }
    }

    /// Totals for each ``SelectKind``.
    public struct ByKind: Sendable, Equatable {
        var field = Totals.zero, entity = Totals.zero, list = Totals.zero, derived = Totals.zero, treeLeaf = Totals.zero, rowSelected = Totals.zero

        public subscript(kind: SelectKind) -> Totals {
            get {
                switch kind {
                case .field: return field
                case .entity: return entity
                case .list: return list
                case .derived: return derived
                case .treeLeaf: return treeLeaf
                case .rowSelected: return rowSelected
                }
            }
            _modify {
                switch kind {
                case .field: yield &field
                case .entity: yield &entity
                case .list: yield &list
                case .derived: yield &derived
                case .treeLeaf: yield &treeLeaf
                case .rowSelected: yield &rowSelected
                }
            }
        }

        /// All kinds together.
        public var total: Totals { field + entity + list + derived + treeLeaf + rowSelected }

        public static func - (a: ByKind, b: ByKind) -> ByKind {
            var d = ByKind()
            for kind in SelectKind.allCases { d[kind] = a[kind] - b[kind] }
            return d
        }
    }

    // NB: callbacks run under their strategy's lock; the mutex only makes
    // reading the totals from another thread well-defined.
    private let totals = Mutex(ByKind())
    public init() {}

    /// Counts one callback of a consumer of `kind` that delivered `digest`.
    @inline(__always)
    public func deliver(_ digest: Int, _ kind: SelectKind) {
        // Order-independent: strategies may notify in different orders.
        var z = UInt64(bitPattern: Int64(digest)) &* 0x9E37_79B9_7F4A_7C15
        z ^= z >> 29
        let mixed = Int(bitPattern: UInt(z))
        totals.withLock {
            $0[kind].callbacks &+= 1
            $0[kind].checksum &+= mixed
        }
    }

    public var current: Totals { totals.withLock { $0.total } }
    public var byKind: ByKind { totals.withLock { $0 } }

    // NB: no lock: selectors of one strategy never run concurrently (its
    // store serializes them), and the count is read after the runs end.
    // Unchecked exclusivity: the dynamic check of a class property cost
    // every strategy about 75 instructions per selector run.
    @exclusivity(unchecked) public private(set) var evaluations = 0

    /// Counts `n` selector runs.
    @inline(__always)
    public func evaluated(_ n: Int = 1) { evaluations &+= n }
}

/// The strategies this build knows, by name.
public enum Strategies {
    public static let all: [any BenchStrategy.Type] = {
        [FullCopyStrategy.self, ReSwiftLikeStrategy.self, FullCopyPersistentStrategy.self, FastStoreStrategy.self, FastStoreMainStrategy.self, FastStoreSharedStrategy.self, FastStoreLazyStrategy.self, FastStoreMainLazyStrategy.self, FastStorePlainStrategy.self, ObservationStrategy.self, ObservationLazyStrategy.self]
    }()

    public static var names: [String] { all.map { $0.name } }

    public static func named(_ name: String) -> (any BenchStrategy.Type)? {
        all.first { $0.name == name }
    }
}

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

    /// Builds the store and the initial state of `workload`, no consumers.
    init(workload: Workload)
    /// Adds the workload's consumers (their first selection is not a callback).
    func attachConsumers()
    /// Dispatches `action`. Synchronous strategies notify before returning.
    func dispatch(_ action: WorkloadAction)
    /// Returns once every dispatched action is reduced and its consumers notified.
    func waitUntilIdle()
    /// Consumer callbacks delivered so far, and a checksum of the values delivered.
    var delivered: Sink.Totals { get }
    /// Selector runs so far (a full-copy consumer runs its selector twice).
    var evaluations: Int { get }
}

extension BenchStrategy {
    public func waitUntilIdle() {}
}

/// Where consumer callbacks land: a count and a checksum of the new values,
/// so that the optimizer cannot drop the work and strategies can be
/// cross-checked against each other.
public final class Sink: @unchecked Sendable {
    public struct Totals: Sendable, Equatable {
        public var callbacks: Int
        public var checksum: Int
        public init(callbacks: Int, checksum: Int) { self.callbacks = callbacks; self.checksum = checksum }
    }
    // NB: callbacks run under their strategy's lock; the mutex only makes
    // reading the totals from another thread well-defined.
    private let totals = Mutex(Totals(callbacks: 0, checksum: 0))
    public init() {}

    @inline(__always)
    public func deliver(_ digest: Int) {
        totals.withLock {
            $0.callbacks &+= 1
            // Order-independent: strategies may notify in different orders.
            var z = UInt64(bitPattern: Int64(digest)) &* 0x9E37_79B9_7F4A_7C15
            z ^= z >> 29
            $0.checksum &+= Int(bitPattern: UInt(z))
        }
    }

    public var current: Totals { totals.withLock { $0 } }

    // NB: no lock: selectors of one strategy never run concurrently (its
    // store serializes them), and the count is read after the runs end.
    public private(set) var evaluations = 0

    /// Counts `n` selector runs.
    @inline(__always)
    public func evaluated(_ n: Int = 1) { evaluations &+= n }
}

/// The strategies this build knows, by name.
public enum Strategies {
    public static let all: [any BenchStrategy.Type] = {
        [FullCopyStrategy.self, ReSwiftLikeStrategy.self, FastStoreStrategy.self, ObservationStrategy.self]
    }()

    public static var names: [String] { all.map { $0.name } }

    public static func named(_ name: String) -> (any BenchStrategy.Type)? {
        all.first { $0.name == name }
    }
}

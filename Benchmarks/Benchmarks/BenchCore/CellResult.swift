import Foundation

/// The figures of one strategy on one workload.
public struct CellResult: Codable, Sendable {
    public var profile: String
    public var strategy: String
    public var entities: Int
    public var consumers: Int
    public var pattern: String
    /// Dispatches measured.
    public var dispatches: Int
    /// Time per dispatch, nanoseconds: median and 99th percentile of the samples.
    public var medianNs: Double
    public var p99Ns: Double
    /// Dispatches per second over the measured phase (wall clock).
    public var throughput: Double
    /// Allocation requests and bytes per dispatch over the measured phase.
    public var allocationsPerDispatch: Double
    public var bytesPerDispatch: Double
    /// Live bytes of the freshly built state (store included).
    public var stateBytes: Int
    /// Bytes the consumers retain after the run: `runGrowthBytes` minus
    /// `stateGrowthBytes`.
    public var consumerBytes: Int
    /// Live bytes gained from attaching the consumers to the end of the run.
    public var runGrowthBytes: Int
    /// Live bytes gained by a second instance, built the same way without
    /// consumers, over the same actions: what the state itself grew.
    public var stateGrowthBytes: Int
    /// Consumer callbacks per dispatch, and a checksum of the values delivered.
    public var callbacksPerDispatch: Double
    /// Selector runs per dispatch (full-copy runs each selector twice).
    public var evaluationsPerDispatch: Double
    /// Callbacks from attaching the consumers to the end of the run
    /// (warm-up included), and a checksum of every value delivered.
    public var callbacks: Int
    public var checksum: Int
    /// Callbacks delivered during the measured phase (over `dispatches`).
    public var measuredCallbacks: Int
    public var setupSeconds: Double

    public init(
        profile: String, strategy: String, entities: Int, consumers: Int, pattern: String, dispatches: Int,
        medianNs: Double, p99Ns: Double, throughput: Double, allocationsPerDispatch: Double,
        bytesPerDispatch: Double, stateBytes: Int, consumerBytes: Int, runGrowthBytes: Int,
        stateGrowthBytes: Int, callbacksPerDispatch: Double, evaluationsPerDispatch: Double, callbacks: Int,
        checksum: Int, measuredCallbacks: Int, setupSeconds: Double
    ) {
        self.profile = profile
        self.strategy = strategy
        self.entities = entities
        self.consumers = consumers
        self.pattern = pattern
        self.dispatches = dispatches
        self.medianNs = medianNs
        self.p99Ns = p99Ns
        self.throughput = throughput
        self.allocationsPerDispatch = allocationsPerDispatch
        self.bytesPerDispatch = bytesPerDispatch
        self.stateBytes = stateBytes
        self.consumerBytes = consumerBytes
        self.runGrowthBytes = runGrowthBytes
        self.stateGrowthBytes = stateGrowthBytes
        self.callbacksPerDispatch = callbacksPerDispatch
        self.evaluationsPerDispatch = evaluationsPerDispatch
        self.callbacks = callbacks
        self.checksum = checksum
        self.measuredCallbacks = measuredCallbacks
        self.setupSeconds = setupSeconds
    }
}

extension CellResult {
    /// Mean time per dispatch, nanoseconds: the measured phase's wall clock
    /// over its dispatches (the inverse of ``throughput``; 0 when nothing
    /// was measured).
    public var meanNs: Double { throughput > 0 ? 1e9 / throughput : 0 }

    /// A result with only its names and median set, the other figures
    /// zero (for tests of the report).
    public init(profile: String, strategy: String, entities: Int, medianNs: Double) {
        self.init(
            profile: profile, strategy: strategy, entities: entities, consumers: 0, pattern: DispatchPattern.single.rawValue,
            dispatches: 0, medianNs: medianNs, p99Ns: medianNs, throughput: 0, allocationsPerDispatch: 0, bytesPerDispatch: 0,
            stateBytes: 0, consumerBytes: 0, runGrowthBytes: 0, stateGrowthBytes: 0, callbacksPerDispatch: 0,
            evaluationsPerDispatch: 0, callbacks: 0, checksum: 0, measuredCallbacks: 0, setupSeconds: 0)
    }
}

// The parts of a `StateConsumer`: what its lock guards, what the thread
// holding its consuming turn owns, and its counters.

/// The part of a ``StateConsumer`` guarded by its lock.
@usableFromInline
internal struct _ConsumerGuarded<State> {
    @usableFromInline var registry = _ConsumerRegistry<State>()
    @usableFromInline var turn = _ConsumeTurn<_PendingConsume<State>>()
    /// The last consumed state, kept only while `consumeInstantly` is on.
    @usableFromInline var instantState: State?
    /// The number its source gave `instantState` (see `_currentTag`).
    @usableFromInline var instantTag: UInt64 = 0
    @usableFromInline var consumeInstantly = false
    /// Statistics of the consumes so far, for tests and benchmarks.
    @usableFromInline var stats = _ConsumeCounters()
    @usableFromInline var diagnosedSlowPath = false
    /// The causes of the consume being delivered, for the callbacks that
    /// take them; made by the first such callback's `add`.
    @usableFromInline var causeSlot: _CauseSlot? = nil
    /// The wake-up hubs this consumer is connected through.
    @usableFromInline var hubLinks: [_HubLink<State>] = []
    @inlinable init() {}
}

/// The part of a ``StateConsumer`` only the thread holding the consuming
/// turn touches: scratch buffers reused from consume to consume.
@usableFromInline
internal struct _ConsumerTurnOwned<State> {
    @usableFromInline let recorder = _ReadRecorder()
    /// Root of the last consumed state (versioned state only).
    @usableFromInline var lastRoot: _RootVersion?
    /// The hub that delivered the last consume, and its root (see
    /// `_WakeUpHub`); `nil` after any other consume.
    @usableFromInline var hubAnchor: _HubAnchor?
    @usableFromInline var candidates: [Int] = []
    @usableFromInline var plan: [ConsumerHandle<State>] = []
    @usableFromInline var spans: [_DrainChanges] = []
    /// The change log of the store whose states this consumer is handed,
    /// once a consume found it.
    @usableFromInline var changeLog: _ChangeLog?
    /// The number of the state being consumed (see `_currentTag`).
    @usableFromInline var tag: UInt64 = 0
    /// Evaluations not yet added to the statistics (see `_flushEvaluations`).
    @usableFromInline var evaluations = 0
    /// The removal count when the turn last checked (see `_removals`).
    @usableFromInline var removalsSeen = 0
    @inlinable init() {}
}

/// Counters of what consumes did (read as ``_ConsumeStatistics``).
@usableFromInline
internal struct _ConsumeCounters {
    @usableFromInline var fullConsumes = 0
    @usableFromInline var journaledConsumes = 0
    @usableFromInline var unchangedConsumes = 0
    @usableFromInline var evaluations = 0
    @usableFromInline var unlinkedConsumes = 0
    @inlinable init() {}
}

/// Counters of what consumes did, for tests and benchmarks (read through
/// the `_statistics` SPI).
@_spi(Testing)
public struct _ConsumeStatistics: Equatable, Sendable {
    /// Consumes that evaluated every consumer.
    public var fullConsumes = 0
    /// Consumes that evaluated only consumers affected by drains' writes.
    public var journaledConsumes = 0
    /// Consumes of the very state consumed last.
    public var unchangedConsumes = 0
    /// Selector evaluations over all consumes.
    public var evaluations = 0
    /// Full consumes of a later version of the last consumed state's root
    /// that the change log could not link to it (a drain dropped from the
    /// store's log, which keeps its last 128). A test
    /// that counts skipped work holds exact counts only while this is 0.
    public var unlinkedConsumes = 0
    public init() {}
}

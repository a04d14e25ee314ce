@_spi(Testing)
extension StateConsumer {
    /// What the consumes so far did (test and benchmark hook).
    public var _statistics: _ConsumeStatistics {
        let counters = _lock.withLock { _guarded.stats }
        var statistics = _ConsumeStatistics()
        statistics.fullConsumes = counters.fullConsumes
        statistics.journaledConsumes = counters.journaledConsumes
        statistics.unchangedConsumes = counters.unchangedConsumes
        statistics.evaluations = counters.evaluations
        statistics.unlinkedConsumes = counters.unlinkedConsumes
        return statistics
    }

    /// The number of (node, kind, consumer) registrations in the reader
    /// index: what the consumer retains besides selections.
    public var _indexRegistrationCount: Int { _lock.withLock { _guarded.registry.index.registrationCount } }

    /// The capacity of the table of unconditional consumers (test hook:
    /// what a consumer keeps once its consumers were evaluated).
    public var _unconditionalCapacity: Int { _lock.withLock { _guarded.registry.unconditional.capacity } }

    /// Whether the consumer holds a state of its own (test hook).
    public var _instantStateIsKept: Bool { _lock.withLock { _guarded.instantState != nil } }
}

@_spi(Testing)
extension ConsumerHandle {
    /// How many times this consumer's selector ran (test hook).
    public var _evaluationCount: Int { Int(evaluationCount) }
}

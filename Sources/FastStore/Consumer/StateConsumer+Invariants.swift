extension StateConsumer {
    /// Checks that the reader index is exactly the inverse of the live
    /// consumers' dependency lists. Must hold the lock.
    ///
    /// - Complexity: O(consumers + their dependencies).
    @usableFromInline
    internal func _invariantCheck() {
        #if FASTSTORE_INTERNAL_CHECKS
        var live = 0
        var registrations = 0
        var previousID = -1
        var removedSeen = 0
        for handle in _ordered {
            precondition(handle.id > previousID, "FastStore: consumers out of registration order")
            previousID = handle.id
            if handle.isRemoved {
                removedSeen += 1
                precondition(_byID[handle.id] !== handle, "FastStore: removed consumer still registered")
                continue
            }
            live += 1
            precondition(_byID[handle.id] === handle, "FastStore: live consumer missing from the id table")
            precondition(handle.dependencies.isEmpty == _unconditional.contains(handle.id),
                         "FastStore: consumer \(handle.id) unconditional iff it has no dependencies")
            precondition(Set(handle.dependencies).count == handle.dependencies.count,
                         "FastStore: repeated dependency")
            for dependency in handle.dependencies {
                precondition(_index.contains(dependency, reader: handle.id),
                             "FastStore: dependency of consumer \(handle.id) missing from the index")
            }
            registrations += handle.dependencies.count
        }
        precondition(removedSeen == _removedInOrdered, "FastStore: removed count out of sync")
        precondition(live == _byID.count, "FastStore: id table holds consumers not in order")
        precondition(_unconditional.count <= live, "FastStore: stale unconditional consumers")
        precondition(_index.registrationCount == registrations, "FastStore: stale reader registrations")
        #endif
    }
}

@_spi(Testing)
extension StateConsumer {
    /// What the consumes so far did (test and benchmark hook).
    public var _statistics: _ConsumeStatistics { _lock.withLock { _stats } }

    /// The number of (node, kind, consumer) registrations in the reader
    /// index: what the consumer retains besides selections.
    public var _indexRegistrationCount: Int { _lock.withLock { _index.registrationCount } }
}

@_spi(Testing)
extension ConsumerHandle {
    /// How many times this consumer's selector ran (test hook).
    public var _evaluationCount: Int { evaluationCount }
}

@_spi(Testing)
extension StateConsumer {
    /// Whether the consumer holds a state of its own (test hook).
    public var _instantStateIsKept: Bool { _lock.withLock { _instantState != nil } }
}

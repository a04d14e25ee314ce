/// A group of consumers of one ``StateConsumer``, removed together.
///
/// ```swift
/// let bag = ConsumerBag(consumer)
/// bag.add(consumer.add({ $0.count }, onCountChanged))
/// bag.add(consumer.add({ $0.name }, onNameChanged))
/// bag.removeAll()   // removes both from `consumer`
/// ```
public final class ConsumerBag<State>: @unchecked Sendable {
    // NB: `@unchecked Sendable`: `_handles` is guarded by `_lock`.
    private let _consumer: StateConsumer<State>
    private let _lock = _Lock()
    private var _handles: Set<ConsumerHandle<State>> = []

    /// A bag of consumers of `consumer`.
    public init(_ consumer: StateConsumer<State>) {
        _consumer = consumer
    }

    /// The consumer this bag's consumers belong to.
    public var stateConsumer: StateConsumer<State> { _consumer }

    /// The number of consumers in the bag.
    public var count: Int { _lock.withLock { _handles.count } }

    /// Puts a consumer added to ``stateConsumer`` into the bag (`nil` does
    /// nothing).
    ///
    /// - Complexity: O(1).
    public func add(_ consumer: ConsumerHandle<State>?) {
        guard let consumer else { return }
        _usagePrecondition(_consumer._owns(consumer),
                     "FastStore: ConsumerBag.add got a consumer that is not registered with the bag's StateConsumer")
        _ = _lock.withLock { _handles.insert(consumer) }
    }

    /// Takes a consumer out of the bag and removes it from
    /// ``stateConsumer`` (`nil` does nothing).
    ///
    /// - Complexity: O(its dependencies).
    public func remove(_ consumer: ConsumerHandle<State>?) {
        guard let consumer else { return }
        _ = _lock.withLock { _handles.remove(consumer) }
        _consumer.remove(consumer)
    }

    /// Removes every consumer of the bag from ``stateConsumer`` and empties
    /// the bag.
    ///
    /// - Complexity: O(consumers in the bag + their dependencies).
    public func removeAll() {
        let handles = _lock.withLock {
            let handles = _handles
            _handles.removeAll()
            return handles
        }
        for handle in handles { _consumer.remove(handle) }
    }
}

extension StateConsumer {
    /// Whether `handle` is registered with this consumer.
    @usableFromInline
    internal func _owns(_ handle: ConsumerHandle<State>) -> Bool {
        _lock.withLock { _guarded.registry.contains(handle) }
    }
}

import Atomics

/// How a scope decides that its state changed from one root state to the
/// next, and how it registers with its root's consumer so that it is
/// evaluated only when something it read was written.
///
/// Chosen once per scope, from the type of its state (see
/// ``_scopeComparison(for:)``): a versioned node changes when its stamp
/// changes; an `Equatable` value when it is not `==`; any other value
/// whenever the scope's reads were written.
internal protocol _ScopeComparison<Value>: Sendable {
    associatedtype Value

    /// Registers with `consumer` a consumer of `get`'s value, which calls
    /// `changed` with the new value when the consumer sees it change.
    func add<Root>(
        to consumer: StateConsumer<Root>,
        _ get: @escaping (Root) -> Value,
        _ changed: @escaping (Value) -> Void
    ) -> ConsumerHandle<Root>

    /// Whether `new` is the same state as `old`, by this comparison.
    func isSame(_ old: Value, _ new: Value) -> Bool
}

/// A scope whose state is a versioned node: it changed when its identity
/// or stamp did. The selection is the node itself, which the consumer
/// records a whole-node read of: any write at or below the node wakes it,
/// no write elsewhere does.
internal struct _NodeComparison<Value: VersionedValue>: _ScopeComparison {
    init() {}

    func add<Root>(
        to consumer: StateConsumer<Root>,
        _ get: @escaping (Root) -> Value,
        _ changed: @escaping (Value) -> Void
    ) -> ConsumerHandle<Root> {
        consumer.add(
            { Optional(get($0)) },
            { (_: Value?, new: Value?) in if let new { changed(new) } },
            predict: { $0?._trackingIdentity == $1?._trackingIdentity })
    }

    func isSame(_ old: Value, _ new: Value) -> Bool { old._trackingIdentity == new._trackingIdentity }
}

/// A scope whose state is `Equatable` (and not a node): it changed when the
/// new state is not `==` to the old one.
internal struct _EquatableComparison<Value: Equatable>: _ScopeComparison {
    init() {}

    func add<Root>(
        to consumer: StateConsumer<Root>,
        _ get: @escaping (Root) -> Value,
        _ changed: @escaping (Value) -> Void
    ) -> ConsumerHandle<Root> {
        consumer.add(get) { (_: Value?, new: Value) in changed(new) }
    }

    func isSame(_ old: Value, _ new: Value) -> Bool { old == new }
}

/// A scope whose state can be neither compared nor stamped: it changed
/// whenever it was evaluated again, that is, whenever something its
/// `state` closures read was written.
internal struct _EvaluationComparison<Value>: _ScopeComparison {
    init() {}

    func add<Root>(
        to consumer: StateConsumer<Root>,
        _ get: @escaping (Root) -> Value,
        _ changed: @escaping (Value) -> Void
    ) -> ConsumerHandle<Root> {
        // NB: an evaluation number, so that a selection is the same as
        // itself (the consumer would otherwise run it at every consume) and
        // differs from every earlier one.
        consumer.add(
            { Optional(_Evaluated(value: get($0), serial: _evaluationCounter.wrappingIncrementThenLoad(ordering: .relaxed))) },
            { (_: _Evaluated<Value>?, new: _Evaluated<Value>?) in if let new { changed(new.value) } },
            predict: { $0?.serial == $1?.serial })
    }

    func isSame(_ old: Value, _ new: Value) -> Bool { false }
}

/// One evaluation of a scope whose state cannot be compared.
internal struct _Evaluated<Value> {
    let value: Value
    let serial: UInt64
}

internal let _evaluationCounter = ManagedAtomic<UInt64>(0)

/// The comparison for a scope of state `type`: by stamp for a versioned
/// node, by `==` for another `Equatable` type, else by evaluation.
///
/// - Complexity: O(1); two dynamic casts of the metatype, once per scope.
internal func _scopeComparison<Value>(for type: Value.Type) -> any _ScopeComparison<Value> {
    if let versioned = type as? any VersionedValue.Type {
        func make<Node: VersionedValue>(_: Node.Type) -> any _ScopeComparison<Value> {
            // NB: `Node == Value` here; the cast only restates it.
            _NodeComparison<Node>() as! any _ScopeComparison<Value>
        }
        return make(versioned)
    }
    if let equatable = type as? any Equatable.Type {
        func make<Comparable: Equatable>(_: Comparable.Type) -> any _ScopeComparison<Value> {
            _EquatableComparison<Comparable>() as! any _ScopeComparison<Value>
        }
        return make(equatable)
    }
    return _EvaluationComparison<Value>()
}

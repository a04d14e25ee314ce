import Atomics

/// An atomic value that one object owns: allocated with it, destroyed with
/// it, reached only through it.
///
/// The drain's atomics are these rather than `ManagedAtomic`s: the drain
/// is too big for the optimizer to inline `ManagedAtomic`'s storage
/// accessor, so each operation on one was a call with a retain and a
/// release of its object around it. An `UnsafeAtomic` has neither, but a
/// copy of it kept past its owner's `deinit` reads or writes freed memory.
/// This wrapper is noncopyable: stored in its owner, it is destroyed by its
/// own `deinit` when the owner goes, and a copy of it that could outlive
/// the owner does not compile. Its raw `_storage` is read by its own
/// methods only (the module could still copy that out: do not). (An
/// atomic that must outlive the object holding it, as a subscriber entry's
/// `cancelled` flag captured by its hub's closure, stays a
/// `ManagedAtomic`.)
///
/// Its operations take their ordering as swift-atomics' do: a constant at
/// the call (they are transparent, so the check reaches the caller).
///
/// - Complexity: Each operation is one atomic instruction; creation one
///   allocation, destruction one deallocation.
@usableFromInline
internal struct _OwnedAtomic<Value: AtomicValue>: ~Copyable
where Value.AtomicRepresentation.Value == Value {
    @usableFromInline let _storage: UnsafeAtomic<Value>

    @inlinable
    init(_ value: Value) { _storage = .create(value) }

    deinit { _storage.destroy() }

    @_semantics("atomics.requires_constant_orderings")
    @_transparent @usableFromInline
    func load(ordering: AtomicLoadOrdering) -> Value {
        _storage.load(ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings")
    @_transparent @usableFromInline
    func store(_ value: Value, ordering: AtomicStoreOrdering) {
        _storage.store(value, ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings")
    @_transparent @usableFromInline
    func exchange(_ value: Value, ordering: AtomicUpdateOrdering) -> Value {
        _storage.exchange(value, ordering: ordering)
    }
}

extension _OwnedAtomic where Value: AtomicInteger {
    @_semantics("atomics.requires_constant_orderings")
    @_transparent @usableFromInline
    func wrappingIncrement(ordering: AtomicUpdateOrdering) {
        _storage.wrappingIncrement(ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings")
    @_transparent @usableFromInline
    func wrappingDecrement(ordering: AtomicUpdateOrdering) {
        _storage.wrappingDecrement(ordering: ordering)
    }

    @_semantics("atomics.requires_constant_orderings")
    @_transparent @usableFromInline
    func wrappingIncrementThenLoad(ordering: AtomicUpdateOrdering) -> Value {
        _storage.wrappingIncrementThenLoad(ordering: ordering)
    }
}

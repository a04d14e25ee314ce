// Consumers of a versioned collection selection whose callback also gets
// what changed, from the collection's structural diff: the consumer never
// compares the elements of the old and new selections. The previous
// selection it keeps is a persistent version that shares every unchanged
// node with the new one. One pair of overloads serves every
// ``VersionedCollection``.

extension StateConsumer {
    /// Adds a consumer of a versioned collection selection (a
    /// ``VersionedList``, ``IdentifiedList`` or ``VersionedDictionary``),
    /// called with the previous collection (`nil` the first time), the new
    /// one, and the changes between them (the first time, from an empty
    /// collection: everything inserted).
    ///
    /// ```swift
    /// consumer.add({ $0.rows }) { old, new, changes in
    ///     changes.forEachBatch(delete: table.deleteRows, insert: table.insertRows, reload: table.reloadRows)
    /// }
    /// ```
    ///
    /// The callback runs when the collection's version changed and the diff
    /// is not empty (a write of an equal value counts, as elements need not
    /// be `Equatable`; the `Equatable` overload does not call back for it).
    ///
    /// - Complexity: O(1) to add. Per changed consume: the selector plus the
    ///   diff, O(c × log n) for c changed elements of versions that share
    ///   structure.
    @inlinable @discardableResult
    public func add<Selection: VersionedCollection>(
        _ selector: @escaping (State) -> Selection,
        _ consumer: @escaping (_ old: Selection?, _ new: Selection, _ changes: Selection.Changes) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._predicted(id: id, selector: { Optional(selector($0)) }, callback: { old, new in
                guard let new else { return }
                let changes = new.difference(from: old ?? Selection())
                if old == nil || !changes.isEmpty { consumer(old, new, changes) }
            }, predict: { old, new in
                old?._trackingIdentity == new?._trackingIdentity
            })
        }
    }

    /// Adds a consumer of a versioned collection of `Equatable` elements,
    /// called, like every `Equatable` selection, when the collection's
    /// contents changed (`==`, fast on versions that share nodes), with the
    /// previous collection (`nil` the first time), the new one and the diff
    /// between them. The diff's updates list the elements written since,
    /// which can include one written back with an equal value.
    ///
    /// - Complexity: O(1) to add. Per changed consume: the selector, `==` and
    ///   the diff, each O(c × log n) for c changed elements of versions that
    ///   share structure.
    @inlinable @discardableResult
    public func add<Selection: VersionedCollection & Equatable>(
        _ selector: @escaping (State) -> Selection,
        _ consumer: @escaping (_ old: Selection?, _ new: Selection, _ changes: Selection.Changes) -> Void
    ) -> ConsumerHandle<State> {
        add(selector) { (old: Selection?, new: Selection) in
            consumer(old, new, new.difference(from: old ?? Selection()))
        }
    }
}

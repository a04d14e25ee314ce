// Consumers of a versioned collection selection whose callback also gets
// what changed, from the collection's structural diff: the consumer never
// compares the elements of the old and new selections. The previous
// selection it keeps is a persistent version that shares every unchanged
// node with the new one.

extension StateConsumer {
    /// Adds a consumer of a ``VersionedList`` selection, called with the
    /// previous list (`nil` the first time), the new one, and the changes
    /// between them (removed offsets in the old list, inserted and updated
    /// offsets in the new one; the first time, every element is inserted).
    ///
    /// ```swift
    /// consumer.add({ $0.rows }) { old, new, changes in
    ///     changes.forEachBatch(delete: table.deleteRows, insert: table.insertRows, reload: table.reloadRows)
    /// }
    /// ```
    ///
    /// The callback runs when the list's version changed and the diff is not
    /// empty. Elements need not be `Equatable`.
    ///
    /// - Complexity: O(1) to add. Per changed consume: the selector plus the
    ///   diff, O(c × log n) for c changed elements of versions that share
    ///   structure.
    @inlinable @discardableResult
    public func add<Element>(
        _ selector: @escaping (State) -> VersionedList<Element>,
        _ consumer: @escaping (_ old: VersionedList<Element>?, _ new: VersionedList<Element>, _ changes: VersionedListChanges) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._predicted(id: id, selector: { Optional(selector($0)) }, callback: { old, new in
                guard let new else { return }
                let changes = new.difference(from: old ?? [])
                if old == nil || !changes.isEmpty { consumer(old, new, changes) }
            }, predict: Self._sameVersion)
        }
    }

    /// Adds a consumer of an ``IdentifiedList`` selection, called with the
    /// previous list (`nil` the first time), the new one, and the changes by
    /// offset and by id.
    ///
    /// - Complexity: as for ``VersionedList`` selections.
    @inlinable @discardableResult
    public func add<Element: Identifiable>(
        _ selector: @escaping (State) -> IdentifiedList<Element>,
        _ consumer: @escaping (_ old: IdentifiedList<Element>?, _ new: IdentifiedList<Element>, _ changes: IdentifiedListChanges<Element.ID>) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._predicted(id: id, selector: { Optional(selector($0)) }, callback: { old, new in
                guard let new else { return }
                // NB: no `old ?? []`: the autoclosure would capture the
                // element metatype (a SendableMetatypes warning).
                let changes: IdentifiedListChanges<Element.ID>
                if let old { changes = new.difference(from: old) } else { changes = new.difference(from: IdentifiedList()) }
                if old == nil || !changes.isEmpty { consumer(old, new, changes) }
            }, predict: { old, new in
                // NB: written out rather than `Self._sameVersion`: a reference
                // to the generic function would capture the element metatype
                // with its conformance (a SendableMetatypes warning).
                if let new { _ReadRecorder.read(new.nodeID, .whole) }
                guard let old, let new else { return old == nil && new == nil }
                return old.nodeID == new.nodeID && old.version == new.version
            })
        }
    }

    /// Adds a consumer of a ``VersionedDictionary`` selection, called with
    /// the previous dictionary (`nil` the first time), the new one, and the
    /// removed, inserted and updated keys.
    ///
    /// - Complexity: O(1) to add. Per changed consume: the selector plus the
    ///   diff, which visits only the trie nodes the versions do not share.
    @inlinable @discardableResult
    public func add<Key: Hashable, Value>(
        _ selector: @escaping (State) -> VersionedDictionary<Key, Value>,
        _ consumer: @escaping (
            _ old: VersionedDictionary<Key, Value>?, _ new: VersionedDictionary<Key, Value>, _ changes: VersionedDictionaryChanges<Key>
        ) -> Void
    ) -> ConsumerHandle<State> {
        _register { id in
            ConsumerHandle._predicted(id: id, selector: { Optional(selector($0)) }, callback: { old, new in
                guard let new else { return }
                let changes: VersionedDictionaryChanges<Key>
                if let old { changes = new.difference(from: old) } else { changes = new.difference(from: VersionedDictionary()) }
                if old == nil || !changes.isEmpty { consumer(old, new, changes) }
            }, predict: { old, new in
                // NB: written out rather than `Self._sameVersion`: a reference
                // to the generic function would capture the element metatype
                // with its conformance (a SendableMetatypes warning).
                if let new { _ReadRecorder.read(new.nodeID, .whole) }
                guard let old, let new else { return old == nil && new == nil }
                return old.nodeID == new.nodeID && old.version == new.version
            })
        }
    }

    /// "Unchanged" for versioned selections: same node, same stamp (stamps
    /// never repeat, so the contents are the same). Records a whole read of
    /// the selection, so any write to it makes the consumer a candidate.
    @inlinable
    internal static func _sameVersion<V: VersionedValue>(_ old: V?, _ new: V?) -> Bool {
        if let new { _ReadRecorder.read(new.nodeID, .whole) }
        guard let old, let new else { return old == nil && new == nil }
        return old.nodeID == new.nodeID && old.version == new.version
    }
}

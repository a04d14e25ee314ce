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
            }, predict: { old, new in
                Self._sameVersion(old.map { ($0.nodeID, $0.version) }, new.map { ($0.nodeID, $0.version) })
            })
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
                Self._sameVersion(old.map { ($0.nodeID, $0.version) }, new.map { ($0.nodeID, $0.version) })
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
                Self._sameVersion(old.map { ($0.nodeID, $0.version) }, new.map { ($0.nodeID, $0.version) })
            })
        }
    }

    /// "Unchanged" for versioned selections: same node, same stamp (stamps
    /// never repeat, so the contents are the same). Records a whole read of
    /// the new selection, so any write to it makes the consumer a candidate.
    ///
    /// NB: takes identities, not the collections, so that the callers'
    /// closures capture no element metatype (a SendableMetatypes warning).
    @inlinable
    internal static func _sameVersion(_ old: (NodeID, VersionStamp)?, _ new: (NodeID, VersionStamp)?) -> Bool {
        if let new { _ReadRecorder.read(new.0, .whole) }
        guard let old, let new else { return old == nil && new == nil }
        return old.0 == new.0 && old.1 == new.1
    }
}

extension StateConsumer {
    /// Adds a consumer of a ``VersionedList`` of `Equatable` elements,
    /// called, like every `Equatable` selection, when the list's contents
    /// changed (`==`, fast on versions that share nodes), with the previous
    /// list (`nil` the first time), the new one and the diff between them.
    /// `changes.updated` lists the elements written since, which can include
    /// one written back with an equal value.
    ///
    /// - Complexity: O(1) to add. Per changed consume: the selector, `==` and
    ///   the diff, each O(c × log n) for c changed elements of versions that
    ///   share structure.
    @inlinable @discardableResult
    public func add<Element: Equatable>(
        _ selector: @escaping (State) -> VersionedList<Element>,
        _ consumer: @escaping (_ old: VersionedList<Element>?, _ new: VersionedList<Element>, _ changes: VersionedListChanges) -> Void
    ) -> ConsumerHandle<State> {
        add(selector) { (old: VersionedList<Element>?, new: VersionedList<Element>) in
            consumer(old, new, new.difference(from: old ?? []))
        }
    }

    /// Adds a consumer of an ``IdentifiedList`` of `Equatable` elements,
    /// called when its contents changed (`==`), with the diff by offset and
    /// by id.
    ///
    /// - Complexity: as for ``VersionedList`` selections.
    @inlinable @discardableResult
    public func add<Element: Identifiable & Equatable>(
        _ selector: @escaping (State) -> IdentifiedList<Element>,
        _ consumer: @escaping (_ old: IdentifiedList<Element>?, _ new: IdentifiedList<Element>, _ changes: IdentifiedListChanges<Element.ID>) -> Void
    ) -> ConsumerHandle<State> {
        add(selector) { (old: IdentifiedList<Element>?, new: IdentifiedList<Element>) in
            let changes: IdentifiedListChanges<Element.ID>
            if let old { changes = new.difference(from: old) } else { changes = new.difference(from: IdentifiedList()) }
            consumer(old, new, changes)
        }
    }
}

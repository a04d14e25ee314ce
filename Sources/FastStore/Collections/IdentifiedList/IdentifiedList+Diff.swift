/// What changed between two versions of an ``IdentifiedList``: the row
/// offsets (table-view convention, see ``VersionedListChanges``) and the ids
/// of the removed, inserted and updated elements, pairwise with the offsets.
public struct IdentifiedListChanges<ID: Hashable>: Hashable, CustomStringConvertible {
    /// Removed offsets (older), inserted offsets (newer), updated offsets.
    public var offsets: VersionedListChanges
    /// The ids of the removed elements, pairwise with `offsets.removed`.
    public var removed: [ID]
    /// The ids of the inserted elements, pairwise with `offsets.inserted`.
    public var inserted: [ID]
    /// The ids of the elements written in place, pairwise with `offsets.updated`.
    public var updated: [ID]

    public init(offsets: VersionedListChanges = VersionedListChanges(), removed: [ID] = [], inserted: [ID] = [], updated: [ID] = []) {
        self.offsets = offsets
        self.removed = removed
        self.inserted = inserted
        self.updated = updated
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { offsets.isEmpty }

    public var description: String {
        "IdentifiedListChanges(removed: \(removed), inserted: \(inserted), updated: \(updated))"
    }
}

extension IdentifiedListChanges: Sendable where ID: Sendable {}

extension IdentifiedList {
    /// The changes that turn `older` into this list, by offset and by id.
    ///
    /// For versions of one list (same ``nodeID``), the structural diff of the
    /// underlying ``VersionedList`` (only unshared nodes are visited); an id
    /// removed and inserted again (moved) is reported removed and inserted.
    /// For unrelated lists, the ids are diffed (the standard library's Myers
    /// diff) and every id kept counts as updated.
    ///
    /// - Complexity: O(c × log n) for c changes when the versions share
    ///   structure; O(n + d²) for unrelated lists.
    @inlinable
    public func difference(from older: IdentifiedList) -> IdentifiedListChanges<ID> {
        _difference(from: older) { _, _ in true }
    }

    @inlinable
    internal func _difference(
        from older: IdentifiedList, isUpdated: (Element, Element) -> Bool
    ) -> IdentifiedListChanges<ID> {
        _Tracking.recordWholeRead(_list._nodeID)
        _Tracking.recordWholeRead(older._list._nodeID)
        let offsets: VersionedListChanges
        if older._list._nodeID == _list._nodeID {
            offsets = _list._structuralDifference(from: older._list)
        } else {
            let oldIDs = older.ids, newIDs = ids
            var changes = VersionedListChanges(newIDs.difference(from: oldIDs))
            // Kept ids pair up in order between the removals and insertions.
            var i = 0, j = 0, r = 0, s = 0
            while i < oldIDs.count && j < newIDs.count {
                if r < changes.removed.count && changes.removed[r] == i { i += 1; r += 1; continue }
                if s < changes.inserted.count && changes.inserted[s] == j { j += 1; s += 1; continue }
                if isUpdated(older._list._unrecordedElement(at: i), _list._unrecordedElement(at: j)) {
                    changes.updated.append(j)
                    changes.updatedInOlder.append(i)
                }
                i += 1
                j += 1
            }
            offsets = changes
        }
        return IdentifiedListChanges(
            offsets: offsets,
            removed: offsets.removed.map { older._list._unrecordedElement(at: $0).id },
            inserted: offsets.inserted.map { _list._unrecordedElement(at: $0).id },
            updated: offsets.updated.map { _list._unrecordedElement(at: $0).id })
    }
}

extension IdentifiedList where Element: Equatable {
    /// The changes that turn `older` into this list. As the general
    /// `difference(from:)`, except that between unrelated lists a kept id
    /// counts as updated only when its elements differ.
    @inlinable
    public func difference(from older: IdentifiedList) -> IdentifiedListChanges<ID> {
        _difference(from: older) { $0 != $1 }
    }
}

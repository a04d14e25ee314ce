/// What changed between two versions of a dictionary (or the ids of an
/// identified list): keys removed, inserted and updated, in no particular
/// order.
public struct VersionedDictionaryChanges<Key: Hashable>: Hashable, CustomStringConvertible {
    /// Keys in the older version only.
    public var removed: [Key]
    /// Keys in the newer version only.
    public var inserted: [Key]
    /// Keys in both whose value was written since the older version (even
    /// with an equal value), or, between unrelated dictionaries of
    /// `Equatable` values, whose values differ.
    public var updated: [Key]

    public init(removed: [Key] = [], inserted: [Key] = [], updated: [Key] = []) {
        self.removed = removed
        self.inserted = inserted
        self.updated = updated
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && updated.isEmpty }

    public var description: String {
        "VersionedDictionaryChanges(removed: \(removed), inserted: \(inserted), updated: \(updated))"
    }
}

extension VersionedDictionaryChanges: Sendable where Key: Sendable {}

extension VersionedDictionary {
    /// The keys removed, inserted and updated from `older` to this dictionary.
    ///
    /// Walks only the nodes the two do not share. Between unrelated
    /// dictionaries (different ``nodeID``), every key in both counts as
    /// updated (the `Equatable` overload compares values instead).
    ///
    /// - Complexity: O(c × log n) for c changed keys when the versions share
    ///   structure.
    @inlinable
    public func difference(from older: VersionedDictionary) -> VersionedDictionaryChanges<Key> {
        _Tracking.recordWholeRead(_nodeID)
        _Tracking.recordWholeRead(older._nodeID)
        var changes = VersionedDictionaryChanges<Key>()
        _MapNode.difference(
            from: older._root, to: _root, shift: 0, isUpdated: { $0.written != $1.written }, into: &changes)
        return changes
    }
}

extension VersionedDictionary where Value: Equatable {
    /// The keys removed, inserted and updated from `older` to this
    /// dictionary. Versions of one dictionary compare write stamps (a write
    /// of an equal value is an update); unrelated dictionaries compare values.
    @inlinable
    public func difference(from older: VersionedDictionary) -> VersionedDictionaryChanges<Key> {
        _Tracking.recordWholeRead(_nodeID)
        _Tracking.recordWholeRead(older._nodeID)
        var changes = VersionedDictionaryChanges<Key>()
        if older._nodeID == _nodeID {
            _MapNode.difference(
                from: older._root, to: _root, shift: 0, isUpdated: { $0.written != $1.written }, into: &changes)
        } else {
            _MapNode.difference(
                from: older._root, to: _root, shift: 0, isUpdated: { $0.value != $1.value }, into: &changes)
        }
        return changes
    }
}

extension VersionedDictionary {
    /// The pairs that satisfy `isIncluded`, as a version of this dictionary
    /// (same ``nodeID``: the diff from this dictionary reports the dropped
    /// keys as removed). Records a read of the whole dictionary.
    ///
    /// - Complexity: O(n) to test every pair, plus O(log n) per key removed
    ///   (the kept part shares its nodes with this dictionary).
    @inlinable
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> VersionedDictionary {
        _Tracking.recordWholeRead(_nodeID)
        var dropped: [Key] = []
        try _root.forEachEntry { entry in
            if try !isIncluded((entry.key, entry.value)) { dropped.append(entry.key) }
        }
        var copy = self
        for key in dropped { copy._setValue(nil, forKey: key, check: false) }
        // NB: not journaled: the result is a new value, not a write to this
        // one (storing it somewhere is that place's write).
        copy._checkAfterWrite()
        return copy
    }

    /// A dictionary with the same keys and transformed values, with a new
    /// identity (its values have no version in common with these).
    /// Records a read of the whole dictionary.
    ///
    /// - Complexity: O(n log n).
    @inlinable
    public func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> VersionedDictionary<Key, T> {
        _Tracking.recordWholeRead(_nodeID)
        var result = VersionedDictionary<Key, T>()
        let stamp = result._root.stamp
        try _root.forEachEntry { entry in
            _ = result._root.update(
                try transform(entry.value), for: entry.key, hash: _MapNode<Key, T>.hash(entry.key), shift: 0,
                stamp: stamp)
            result._count += 1
        }
        result._checkAfterWrite()
        return result
    }
}

// Whole-list algorithms that rebuild the tree once instead of writing
// element by element.

extension VersionedList {
    /// Removes the elements that satisfy `shouldBeRemoved`, keeping the
    /// identity of the others (the diff reports only the removed ones).
    /// Journals a structural write when anything was removed.
    ///
    /// - Complexity: O(n); rebuilds the tree (no sharing with older versions).
    @inlinable
    public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        // NB: which elements go depends on every element's value: a read of
        // the whole list (for a selector mutating a copy of the state's).
        _Tracking.recordWholeRead(_nodeID)
        if let (old, new) = try _removeAll(where: shouldBeRemoved) {
            _Tracking.journalWrite(_nodeID, from: old, to: new, .content)
        }
    }

    /// `removeAll(where:)` without journaling; returns the versions before
    /// and after, or nil when nothing was removed.
    @inlinable
    internal mutating func _removeAll(
        where shouldBeRemoved: (Element) throws -> Bool
    ) rethrows -> (VersionStamp, VersionStamp)? {
        var elements = ContiguousArray<Element>()
        var slots = ContiguousArray<_ListSlot>()
        elements.reserveCapacity(_root.count)
        slots.reserveCapacity(_root.count)
        try _root.forEachLeaf { leaf in
            for i in 0 ..< leaf.count where try !shouldBeRemoved(leaf.elements[i]) {
                elements.append(leaf.elements[i])
                slots.append(leaf.slot(i))
            }
        }
        guard elements.count != _root.count else { return nil }
        let old = _root.stamp
        let new = VersionStamp.next()
        _setRoot(_ListNode.build(elements, slots: slots, stamp: new))
        _checkAfterWrite()
        return (old, new)
    }

    /// The elements that satisfy `isIncluded`, as a version of this list
    /// (same ``nodeID``; the diff from this list reports the dropped
    /// elements as removed). Records a read of the whole list.
    ///
    /// `map` is `Sequence`'s and returns an `Array`: a mapped list has no
    /// element in common with this one.
    ///
    /// - Complexity: O(n).
    @inlinable
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> VersionedList {
        _Tracking.recordWholeRead(_nodeID)
        // NB: not journaled: the result is a new value, not a write to this
        // one (storing it somewhere is that place's write).
        var copy = self
        _ = try copy._removeAll { try !isIncluded($0) }
        return copy
    }

    /// Sorts the list in place with `areInIncreasingOrder`. Journals a
    /// structural write. Every element takes a new identity: the diff
    /// reports a sort as all rows removed and inserted (a table reload).
    ///
    /// - Complexity: O(n log n); rebuilds the tree.
    @inlinable
    public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
        // NB: the order depends on every element's value (see `removeAll(where:)`).
        _Tracking.recordWholeRead(_nodeID)
        if let (old, new) = try _sort(by: areInIncreasingOrder) {
            _Tracking.journalWrite(_nodeID, from: old, to: new, .content)
        }
    }

    /// `sort(by:)` without journaling; returns the versions before and
    /// after, or nil when the list has fewer than two elements.
    @inlinable
    internal mutating func _sort(
        by areInIncreasingOrder: (Element, Element) throws -> Bool
    ) rethrows -> (VersionStamp, VersionStamp)? {
        guard _root.count > 1 else { return nil }
        var elements = _root.flattened().elements
        try elements.sort(by: areInIncreasingOrder)
        let old = _root.stamp
        let new = VersionStamp.next()
        _setRoot(_ListNode.build(elements, stamp: new))
        _checkAfterWrite()
        return (old, new)
    }

    /// The list sorted with `areInIncreasingOrder`, as a version of this
    /// list. Records a read of the whole list.
    ///
    /// - Complexity: O(n log n).
    @inlinable
    public func sorted(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows -> VersionedList {
        _Tracking.recordWholeRead(_nodeID)
        var copy = self
        _ = try copy._sort(by: areInIncreasingOrder)
        return copy
    }
}

extension VersionedList where Element: Comparable {
    /// Sorts the list in ascending order. See ``sort(by:)``.
    @inlinable
    public mutating func sort() { sort(by: <) }

    /// The list sorted in ascending order, as a version of this list.
    @inlinable
    public func sorted() -> VersionedList { sorted(by: <) }
}

extension VersionedList: RangeReplaceableCollection {
    /// Replaces the elements in `subrange` with `newElements`.
    ///
    /// Journals a structural write. The elements kept keep their identity
    /// (the diff reports only the replaced ones).
    ///
    /// - Precondition: `subrange` is within `0 ... count`.
    /// - Complexity: O((k + m) log n) for k removed and m inserted elements
    ///   when k + m ≤ n/16 (shares every untouched node with older
    ///   versions), O(n + m) otherwise (rebuilds the tree).
    @inlinable
    public mutating func replaceSubrange<C: Collection>(
        _ subrange: Range<Int>, with newElements: C
    ) where C.Element == Element {
        let n = _root.count
        _usagePrecondition(
            subrange.lowerBound >= 0 && subrange.upperBound <= n, "Range out of bounds")
        let inserted = ContiguousArray(newElements)
        let removedCount = subrange.count
        if removedCount == 0 && inserted.isEmpty { return }
        let (old, new) = _beginStructuralWrite()
        let base = _reserveStamps(inserted.count)
        if (removedCount + inserted.count) &* 16 <= n {
            for _ in 0 ..< removedCount { _ = _remove(at: subrange.lowerBound, stamp: new) }
            var i = subrange.lowerBound
            for element in inserted {
                _insert(element, slot: _ListSlot(fresh: base &+ UInt64(i - subrange.lowerBound)), at: i, stamp: new)
                i += 1
            }
        } else {
            var (elements, slots) = _root.flattened()
            elements.replaceSubrange(subrange, with: inserted)
            slots.replaceSubrange(
                subrange, with: (0 ..< inserted.count).lazy.map { _ListSlot(fresh: base &+ UInt64($0)) })
            _setRoot(_ListNode.build(elements, slots: slots, stamp: new))
        }
        _Tracking.journalWrite(_nodeID, from: old, to: new, .content)
        _checkAfterWrite()
    }

    /// Appends `element`. Journals a structural write.
    ///
    /// - Complexity: O(log n); copies one node per level when shared.
    @inlinable
    public mutating func append(_ element: Element) {
        insert(element, at: _root.count)
    }

    /// Appends the elements of `newElements`.
    ///
    /// - Complexity: O(m log n), or O(n + m) when m > n/16.
    @inlinable
    public mutating func append<S: Sequence>(contentsOf newElements: S) where S.Element == Element {
        let n = _root.count
        replaceSubrange(n ..< n, with: ContiguousArray(newElements))
    }

    /// Inserts `element` at `index`. Journals a structural write.
    ///
    /// - Precondition: `index` is in `0 ... count` ("Index out of range").
    /// - Complexity: O(log n); copies one node per level when shared.
    @inlinable
    public mutating func insert(_ element: Element, at index: Int) {
        _usagePrecondition(index >= 0 && index <= _root.count, "Index out of range")
        let (old, new) = _beginStructuralWrite()
        _insert(element, slot: _ListSlot(fresh: new.rawValue), at: index, stamp: new)
        _Tracking.journalWrite(_nodeID, from: old, to: new, .content)
        _checkAfterWrite()
    }

    /// Removes and returns the element at `index`. Journals a structural write.
    ///
    /// - Precondition: `index` is in `0 ..< count` ("Index out of range").
    /// - Complexity: O(log n); copies one node per level when shared.
    @inlinable
    @discardableResult
    public mutating func remove(at index: Int) -> Element {
        _usagePrecondition(index >= 0 && index < _root.count, "Index out of range")
        // NB: what it returns is a read of that element, as `self[index]`
        // is (a selector may remove from a copy of the state's list).
        _Tracking.recordElementRead(_nodeID, index)
        let (old, new) = _beginStructuralWrite()
        let element = _remove(at: index, stamp: new)
        _Tracking.journalWrite(_nodeID, from: old, to: new, .content)
        _checkAfterWrite()
        return element
    }

    /// Removes and returns the last element.
    ///
    /// - Precondition: the list is not empty.
    @inlinable
    @discardableResult
    public mutating func removeLast() -> Element {
        _usagePrecondition(_root.count > 0, "Can't remove last element from an empty collection")
        // NB: which element is last depends on the count: a whole read.
        _Tracking.recordWholeRead(_nodeID)
        return remove(at: _root.count - 1)
    }

    /// Removes and returns the first element.
    ///
    /// - Precondition: the list is not empty.
    @inlinable
    @discardableResult
    public mutating func removeFirst() -> Element {
        _usagePrecondition(_root.count > 0, "Can't remove first element from an empty collection")
        return remove(at: 0)
    }

    /// Removes every element (keeping the list's identity).
    ///
    /// - Complexity: O(1).
    @inlinable
    public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
        guard _root.count > 0 else { return }
        let old = _root.stamp
        let new = VersionStamp.next()
        _setRoot(_ListNode.leaf(EmptyCollection(), slots: EmptyCollection(), stamp: new))
        _Tracking.journalWrite(_nodeID, from: old, to: new, .content)
    }

    /// Does nothing: the tree grows node by node.
    @inlinable
    public mutating func reserveCapacity(_ n: Int) {}
}

extension IdentifiedList {
    /// The position of the element with `id`, if any (not recorded).
    ///
    /// - Complexity: O(log n) levels.
    @inlinable
    internal func _position(of id: ID) -> Int? {
        _locate(id)?.position
    }

    /// Whether an element has `id`. Records a read of that id.
    @inlinable
    public func contains(id: ID) -> Bool {
        _Tracking.recordElementRead(_list._nodeID, id)
        return _locate(id) != nil
    }

    /// The position of the element with `id`, or nil. Records a read of the
    /// list's structure (a position depends on which ids come before it,
    /// not on their elements' values).
    ///
    /// - Complexity: O(log n) levels.
    @inlinable
    public func index(id: ID) -> Int? {
        _Tracking.recordStructureRead(_list._nodeID)
        return _position(of: id)
    }

    /// The ids in order. Records a read of the list's structure: a write
    /// of an element's value under its id does not change it.
    ///
    /// - Complexity: O(n).
    ///
    /// NB: inlinable, so that the copy loop is specialized for the caller's
    /// element and id types (unspecialized, each id went through the
    /// `Identifiable` witness and a generic append).
    @inlinable
    public var ids: [ID] {
        _Tracking.recordStructureRead(_list._nodeID)
        let count = _list._count
        return [ID](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var written = 0
            _list._forEachLeaf { leaf in
                for element in leaf.elements {
                    precondition(written < count, "IdentifiedList: more elements than its count")
                    (base + written).initialize(to: element.id)
                    written += 1
                }
            }
            initialized = written
        }
    }

    /// Inserts `element` at `position`. Journals its id.
    ///
    /// - Precondition: `position` is in `0 ... count` ("Index out of range");
    ///   no element has the same id ("IdentifiedList: duplicate id ...").
    /// - Complexity: O(log n) amortized.
    @inlinable
    public mutating func insert(_ element: Element, at position: Int) {
        _usagePrecondition(position >= 0 && position <= _list._count, "Index out of range")
        let id = element.id
        _usagePrecondition(_locate(id) == nil, "IdentifiedList: duplicate id \(id)")
        let old = _version
        let new = VersionStamp.next()
        _list._makeRootUnique(stamp: new)
        let moved = _list._insert(element, slot: _ListSlot(fresh: new.rawValue), at: position, stamp: new)
        _fileInsertion(of: id, at: position, leavesMoved: moved, stamp: new)
        _Tracking.journalElementWrite(_list._nodeID, from: old, to: _version, id)
        _checkAfterWrite()
    }

    /// Appends `element`. Journals its id.
    ///
    /// - Precondition: no element has the same id.
    @inlinable
    public mutating func append(_ element: Element) {
        insert(element, at: _list._count)
    }

    /// Appends every element of `elements`, in order.
    @inlinable
    public mutating func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    /// Removes and returns the element at `position`. Journals its id.
    ///
    /// - Precondition: `position` is in `0 ..< count` ("Index out of range").
    /// - Complexity: O(log n).
    @inlinable
    @discardableResult
    public mutating func remove(at position: Int) -> Element {
        _usagePrecondition(position >= 0 && position < _list._count, "Index out of range")
        // NB: what it returns is a read (by position: the whole list), as
        // when a selector removes from a copy of the state's list.
        _Tracking.recordWholeRead(_list._nodeID)
        return _remove(at: position)
    }

    /// `remove(at:)` without recording a read.
    @inlinable
    internal mutating func _remove(at position: Int, id knownID: ID? = nil) -> Element {
        let old = _version
        let new = VersionStamp.next()
        let leafLabel = _list._leaf(containing: position).label
        _list._makeRootUnique(stamp: new)
        var moved = false
        let element = _list._remove(at: position, stamp: new, leavesMoved: &moved)
        // NB: the removed element's id is the list's own read.
        let id = knownID ?? _TrackingContext._withReadsUnrecorded { element.id }
        _unfile(id, leafLabel: leafLabel)
        if moved, _list._count > 0 { _refile(around: Swift.min(position, _list._count &- 1), stamp: new) }
        _Tracking.journalElementWrite(_list._nodeID, from: old, to: _version, id)
        _checkAfterWrite()
        return element
    }

    /// Removes and returns the element with `id`, or returns nil (writing
    /// nothing) when there is none. Journals the id.
    ///
    /// - Complexity: O(log n) levels.
    @inlinable
    @discardableResult
    public mutating func remove(id: ID) -> Element? {
        // NB: what it returns (the element, or its absence) is a read of
        // that id, as `self[id: id]` is.
        _Tracking.recordElementRead(_list._nodeID, id)
        guard let position = _position(of: id) else { return nil }
        return _remove(at: position)
    }

    /// Moves the element at `source` so that it ends at `destination` (a
    /// position in the list after the move): a reorder, journaled as an
    /// order change (readers of elements by id are not affected, readers of
    /// the whole list are). The diff reports a move as a removal (at the old
    /// offset) and an insertion (at the new one), which a table view can
    /// animate as such.
    ///
    /// - Precondition: both positions are in `0 ..< count` ("Index out of range").
    /// - Complexity: O(log n) amortized.
    @inlinable
    public mutating func move(from source: Int, to destination: Int) {
        let n = _list._count
        _usagePrecondition(source >= 0 && source < n && destination >= 0 && destination < n, "Index out of range")
        guard source != destination else { return }
        let old = _version
        let new = VersionStamp.next()
        let leafLabel = _list._leaf(containing: source).label
        _list._makeRootUnique(stamp: new)
        var removalMoved = false
        let element = _list._remove(at: source, stamp: new, leavesMoved: &removalMoved)
        let id = _TrackingContext._withReadsUnrecorded { element.id }
        _unfile(id, leafLabel: leafLabel)
        if removalMoved { _refile(around: Swift.min(source, n &- 2), stamp: new) }
        let stamp = VersionStamp.next()
        _list._makeRootUnique(stamp: stamp)
        let moved = _list._insert(element, slot: _ListSlot(fresh: stamp.rawValue), at: destination, stamp: stamp)
        _fileInsertion(of: id, at: destination, leavesMoved: moved, stamp: stamp)
        // NB: every id keeps its element: only the order changed.
        _Tracking.journalWrite(_list._nodeID, from: old, to: _version, .order)
        _checkAfterWrite()
    }

    /// Removes the elements that satisfy `shouldBeRemoved`, keeping the
    /// others' identities. Journals a structural write when anything was
    /// removed.
    ///
    /// - Complexity: O(n log n).
    @inlinable
    public mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        // NB: which rows go depends on every row's value: a read of the
        // whole list (for a selector mutating a copy of the state's, whose
        // count and ids afterwards are structure reads).
        _Tracking.recordWholeRead(_list._nodeID)
        let old = _version
        if try _removeAll(where: shouldBeRemoved) {
            _Tracking.journalWrite(_list._nodeID, from: old, to: _version, .content)
        }
    }

    /// `removeAll(where:)` without journaling; whether anything was removed.
    @inlinable
    internal mutating func _removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows -> Bool {
        var kept = ContiguousArray<Element>()
        var slots = ContiguousArray<_ListSlot>()
        try _list._forEachLeaf { leaf in
            for i in 0 ..< leaf.count where try !shouldBeRemoved(leaf.elements[i]) {
                kept.append(leaf.elements[i])
                slots.append(leaf.slot(i))
            }
        }
        guard kept.count != _list._count else { return false }
        _rebuild(kept, slots: slots)
        return true
    }

    /// Replaces every element with `elements`, keeping the list's identity
    /// and its attached folds (an assignment of a new list, `list =
    /// IdentifiedList(elements)`, has neither: its consumers compare and
    /// its folds are gone). Journals a structural write.
    ///
    /// - Precondition: the ids are unique ("IdentifiedList: duplicate id ...").
    /// - Complexity: O(n log n), plus O(n) per attached fold.
    @inlinable
    public mutating func replaceAll<S: Sequence>(with elements: S) where S.Element == Element {
        let old = _version
        _rebuild(ContiguousArray(elements), slots: nil)
        _Tracking.journalWrite(_list._nodeID, from: old, to: _version, .content)
    }

    /// Removes every element (keeping the identity). Journals a structural write.
    @inlinable
    public mutating func removeAll() {
        removeAll { _ in true }
    }

    /// Sorts the elements with `areInIncreasingOrder`. Journals an order
    /// change (readers of elements by id are not affected, readers of the
    /// whole list are); the diff reports a sort as every row removed and
    /// inserted.
    ///
    /// - Complexity: O(n log n).
    @inlinable
    public mutating func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
        // NB: the order depends on every row's value (see `removeAll(where:)`).
        _Tracking.recordWholeRead(_list._nodeID)
        let old = _version
        if try _sort(by: areInIncreasingOrder) {
            // NB: every id keeps its element: only the order changed.
            _Tracking.journalWrite(_list._nodeID, from: old, to: _version, .order)
        }
    }

    /// `sort(by:)` without journaling; whether anything was rebuilt.
    @inlinable
    internal mutating func _sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows -> Bool {
        guard _list._count > 1 else { return false }
        var elements = ContiguousArray<Element>()
        elements.reserveCapacity(_list._count)
        _list._forEachLeaf { leaf in
            for element in leaf.elements { elements.append(element) }
        }
        try elements.sort(by: areInIncreasingOrder)
        _rebuild(elements, slots: nil)
        return true
    }

    /// The elements that satisfy `isIncluded`, as a version of this list.
    @inlinable
    public func filter(_ isIncluded: (Element) throws -> Bool) rethrows -> IdentifiedList {
        _Tracking.recordWholeRead(_list._nodeID)
        // NB: not journaled: the result is a new value, not a write to this one.
        var copy = self
        _ = try copy._removeAll { try !isIncluded($0) }
        return copy
    }
}

extension IdentifiedList {
    /// The list sorted with `areInIncreasingOrder`, as a version of this
    /// list. Records a read of the whole list.
    ///
    /// - Complexity: O(n log n).
    @inlinable
    public func sorted(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows -> IdentifiedList {
        _Tracking.recordWholeRead(_list._nodeID)
        // NB: not journaled: the result is a new value, not a write to this one.
        var copy = self
        _ = try copy._sort(by: areInIncreasingOrder)
        return copy
    }
}

extension IdentifiedList where Element: Comparable {
    /// Sorts the elements in ascending order.
    @inlinable
    public mutating func sort() { sort(by: <) }
}

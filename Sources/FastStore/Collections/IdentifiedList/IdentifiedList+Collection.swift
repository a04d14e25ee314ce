// IdentifiedList as a RandomAccessCollection by position: its count and
// bounds (reads of the list's structure), reads by position and iteration
// (reads of the whole list).

extension IdentifiedList: RandomAccessCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>

    @inlinable public var startIndex: Int { 0 }

    /// The element count. Records a read of the list's structure.
    @inlinable public var endIndex: Int {
        _Tracking.recordStructureRead(_list._nodeID)
        return _list._count
    }

    /// The element count. Records a read of the list's structure (a write
    /// of an element's value under its id does not change it).
    @inlinable public var count: Int {
        _Tracking.recordStructureRead(_list._nodeID)
        return _list._count
    }

    /// Whether the list is empty. Records a read of the list's structure.
    @inlinable public var isEmpty: Bool {
        _Tracking.recordStructureRead(_list._nodeID)
        return _list._count == 0
    }

    /// The element count. Records a read of the list's structure.
    @inlinable public var underestimatedCount: Int {
        _Tracking.recordStructureRead(_list._nodeID)
        return _list._count
    }

    @inlinable public func index(after i: Int) -> Int { i + 1 }
    @inlinable public func index(before i: Int) -> Int { i - 1 }
    @inlinable public func index(_ i: Int, offsetBy distance: Int) -> Int { i + distance }
    @inlinable public func distance(from start: Int, to end: Int) -> Int { end - start }

    /// The element at `position`. Records a read of the whole list (which
    /// element sits at a position depends on the whole order).
    ///
    /// - Precondition: `position` is in `0 ..< count` ("Index out of range").
    /// - Complexity: O(log n).
    @inlinable
    public subscript(position: Int) -> Element {
        _usagePrecondition(position >= 0 && position < _list._count, "Index out of range")
        _Tracking.recordWholeRead(_list._nodeID)
        return _list._unrecordedElement(at: position)
    }

    /// Iterates the elements leaf by leaf. Records a read of the whole list.
    @inlinable
    public func makeIterator() -> Iterator {
        _Tracking.recordWholeRead(_list._nodeID)
        return Iterator(base: _list._unrecordedIterator())
    }

    /// An iterator over an identified list's elements.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var base: VersionedList<Element>.Iterator
        @inlinable init(base: VersionedList<Element>.Iterator) { self.base = base }
        /// NB: the list's own per-leaf loop (see
        /// `VersionedList.Iterator.next()`), written out so that the
        /// caller's loop is specialized and inlined with it.
        @inlinable @inline(__always)
        public mutating func next() -> Element? {
            if base._cursor == base._end {
                guard base._advanceLeaf() else { return nil }
            }
            let cursor = base._cursor.unsafelyUnwrapped
            base._cursor = cursor + 1
            return cursor.pointee
        }
    }
}

/// The items of one kind a ``_ListNode`` holds (its elements, slots,
/// children or counts), read and written in place.
///
/// Holds the node, so the items stay valid while the view lives. Writing
/// through a view is allowed only while the node is uniquely referenced
/// (as for the node's other fields).
@usableFromInline
internal struct _NodeLane<Element, Item>: RandomAccessCollection {
    @usableFromInline let _node: _ListNode<Element>
    @usableFromInline let _base: UnsafeMutablePointer<Item>
    @usableFromInline let _count: Int

    @inlinable @inline(__always)
    init(_ node: _ListNode<Element>, _ base: UnsafeMutablePointer<Item>, _ count: Int) {
        _node = node
        _base = base
        _count = count
    }

    @inlinable var startIndex: Int { 0 }
    @inlinable var endIndex: Int { _count }
    @inlinable var count: Int { _count }
    @inlinable var isEmpty: Bool { _count == 0 }

    @inlinable @inline(__always) func index(after i: Int) -> Int { i &+ 1 }
    @inlinable @inline(__always) func index(before i: Int) -> Int { i &- 1 }

    @inlinable
    subscript(position: Int) -> Item {
        @inline(__always) get {
            precondition(position >= 0 && position < _count, "_NodeLane: index out of range")
            return _base[position]
        }
        @inline(__always) nonmutating set {
            precondition(position >= 0 && position < _count, "_NodeLane: index out of range")
            _base[position] = newValue
        }
        @inline(__always) nonmutating _modify {
            precondition(position >= 0 && position < _count, "_NodeLane: index out of range")
            yield &_base[position]
        }
    }

    /// Calls `body` with the items, contiguous.
    @inlinable
    func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Item>) throws -> R) rethrows -> R {
        try withExtendedLifetime(_node) { try body(UnsafeBufferPointer(start: _base, count: _count)) }
    }

    @inlinable
    func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<Item>) throws -> R) rethrows -> R? {
        try withUnsafeBufferPointer(body)
    }
}

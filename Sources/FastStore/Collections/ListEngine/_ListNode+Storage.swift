// The tail storage of a list node: where its items lie, how nodes are made,
// and the moves of items within and between nodes that inserts, removes,
// splits and merges are made of (copies: `_ListNode+Copies.swift`).
//
// Layout after the header: a leaf's elements, then (when explicit) its
// slots; a branch's children, then their counts. Each run starts aligned
// for its type; the allocation includes the padding.

extension _ListNode {
    // MARK: Where the items are

    @inlinable @inline(__always)
    var _tail: UnsafeMutableRawPointer {
        withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }
    }

    @inlinable @inline(__always)
    var _elementsPointer: UnsafeMutablePointer<Element> {
        _tail.alignedUp(for: Element.self).assumingMemoryBound(to: Element.self)
    }

    /// Valid only in a leaf with explicit slots.
    @inlinable @inline(__always)
    var _slotsPointer: UnsafeMutablePointer<_ListSlot> {
        UnsafeMutableRawPointer(_elementsPointer + itemCapacity)
            .alignedUp(for: _ListSlot.self).assumingMemoryBound(to: _ListSlot.self)
    }

    @inlinable @inline(__always)
    var _childrenPointer: UnsafeMutablePointer<_ListNode<Element>> {
        _tail.alignedUp(for: _ListNode<Element>.self).assumingMemoryBound(to: _ListNode<Element>.self)
    }

    @inlinable @inline(__always)
    var _countsPointer: UnsafeMutablePointer<Int> {
        UnsafeMutableRawPointer(_childrenPointer + itemCapacity).assumingMemoryBound(to: Int.self)
    }

    @inlinable @inline(__always)
    var _hasExplicitSlots: Bool { _header.pointee.explicitSlots != 0 }

    @inlinable @inline(__always)
    func _setWidth(_ width: Int) { _header.pointee.width = width }

    // MARK: Making nodes

    /// Where a node's tail (its items) starts in its allocation: after the
    /// object's header (two words) and the node's header, which has the
    /// same layout whatever `Element` is.
    @inlinable @inline(__always)
    static var _tailOffset: Int {
        let objectHeader = 2 &* MemoryLayout<Int>.size
        let alignment = MemoryLayout<Header>.alignment
        return ((objectHeader &+ alignment &- 1) & ~(alignment &- 1)) &+ MemoryLayout<Header>.size
    }

    /// The bytes of padding before a run of `T` that starts `offset` bytes
    /// into a node's allocation: none when `offset` is aligned for `T`
    /// already (the allocation itself is aligned to two words); for a type
    /// aligned more strictly than that, the worst case.
    ///
    /// NB: exact rather than `alignment - 1` always: with `Element` 8-aligned
    /// a leaf of 17 elements of 32 bytes asked for 647 bytes and jemalloc
    /// gave 768, where 640 fit.
    @inlinable @inline(__always)
    static func _padding<T>(_: T.Type, at offset: Int) -> Int {
        let alignment = MemoryLayout<T>.alignment
        if alignment > 2 &* MemoryLayout<Int>.size { return alignment &- 1 }
        return (0 &- offset) & (alignment &- 1)
    }

    /// An empty node of `height` with room for `capacity` items.
    ///
    /// - Complexity: O(1); one allocation.
    @inlinable
    static func _make(
        height: Int, capacity: Int, explicitSlots: Bool, slotBase: UInt64 = 0, stamp: VersionStamp
    ) -> _ListNode {
        let tail = _tailOffset
        let bytes: Int
        if height == 0 {
            let elementsEnd = tail &+ _padding(Element.self, at: tail) &+ capacity &* MemoryLayout<Element>.stride
            bytes = elementsEnd &- tail
                &+ (explicitSlots ? _padding(_ListSlot.self, at: elementsEnd) &+ capacity &* MemoryLayout<_ListSlot>.stride : 0)
        } else {
            bytes = _padding(_ListNode.self, at: tail) &+ capacity &* (MemoryLayout<_ListNode>.stride &+ MemoryLayout<Int>.stride)
        }
        let buffer = create(minimumCapacity: bytes) { _ in
            Header(stamp: stamp, height: height, capacity: capacity, explicitSlots: explicitSlots || height > 0, slotBase: slotBase)
        }
        let node = unsafeDowncast(buffer, to: _ListNode.self)
        #if FASTSTORE_INTERNAL_CHECKS
        // NB: the layout `_tailOffset` and `_padding` assume.
        precondition(node._tail == UnsafeMutableRawPointer(Unmanaged.passUnretained(node).toOpaque()) + tail,
                     "_ListNode: the tail is not where _tailOffset says")
        precondition(UnsafeMutableRawPointer(mutating: height == 0 ? UnsafeRawPointer(node._elementsPointer) : UnsafeRawPointer(node._childrenPointer))
                         == node._tail + (height == 0 ? _padding(Element.self, at: tail) : _padding(_ListNode.self, at: tail)),
                     "_ListNode: the items are not where _padding says")
        #endif
        return node
    }

    /// Initializes `target[0 ..< source.count]` with the items of `source`.
    @inlinable @inline(__always)
    static func _initialize<C: Collection>(_ target: UnsafeMutablePointer<C.Element>, from source: C) {
        var target = target
        for item in source {
            target.initialize(to: item)
            target += 1
        }
    }

    /// The item capacity of a leaf that is not the root.
    @inlinable static var _fullLeafCapacity: Int { leafCapacity &+ 1 }
    /// The item capacity of every branch.
    @inlinable static var _branchItemCapacity: Int { branchCapacity &+ 1 }

    /// A leaf holding `elements` with the explicit `slots` (pairwise), with
    /// room for `capacity` elements (at least their count; by default
    /// exactly their count).
    @inlinable
    static func leaf<E: Collection<Element>, S: Collection<_ListSlot>>(
        _ elements: E, slots: S, capacity: Int? = nil, stamp: VersionStamp
    ) -> _ListNode {
        let n = elements.count
        precondition(slots.count == n, "VersionedList: \(slots.count) slots for \(n) elements")
        let node = _make(height: 0, capacity: Swift.max(capacity ?? n, n), explicitSlots: true, stamp: stamp)
        _initialize(node._elementsPointer, from: elements)
        _initialize(node._slotsPointer, from: slots)
        node._setWidth(n)
        node.count = n
        return node
    }

    /// A leaf holding `elements` with implicit slots from `slotBase`, with
    /// room for `capacity` elements (at least their count; by default
    /// exactly their count).
    @inlinable
    static func leaf<E: Collection<Element>>(
        _ elements: E, slotBase: UInt64, capacity: Int? = nil, stamp: VersionStamp
    ) -> _ListNode {
        let n = elements.count
        let node = _make(
            height: 0, capacity: Swift.max(capacity ?? n, n), explicitSlots: false, slotBase: slotBase, stamp: stamp)
        _initialize(node._elementsPointer, from: elements)
        node._setWidth(n)
        node.count = n
        return node
    }

    /// A branch over `children` (2 ... `branchCapacity + 1` of them) whose
    /// element counts are `counts`, pairwise, totalling `count`.
    @inlinable
    static func branch<C: Collection<_ListNode>, N: Collection<Int>>(
        _ children: C, counts: N, height: Int, count: Int, stamp: VersionStamp
    ) -> _ListNode {
        let n = children.count
        precondition(n <= _branchItemCapacity && counts.count == n, "VersionedList: branch of \(n) children")
        let node = _make(height: height, capacity: _branchItemCapacity, explicitSlots: true, stamp: stamp)
        _initialize(node._childrenPointer, from: children)
        _initialize(node._countsPointer, from: counts)
        node._setWidth(n)
        node.count = count
        return node
    }

    /// A branch over `children`, taking their counts.
    @inlinable
    static func branch<C: Collection<_ListNode>>(_ children: C, height: Int, stamp: VersionStamp) -> _ListNode {
        let counts = children.map(\.count)
        return branch(children, counts: counts, height: height, count: counts.reduce(0, +), stamp: stamp)
    }

    // MARK: Moving items (both runs at once)

    /// Opens room for `n` items at `i`: items `i ..< width` move up by `n`
    /// and the width grows by `n`; the caller initializes the gap. The node
    /// must have the room, and a leaf explicit slots.
    @inlinable
    func _openGap(at i: Int, _ n: Int) {
        let w = width
        let moved = w &- i
        if height == 0 {
            (_elementsPointer + i + n).moveInitialize(from: _elementsPointer + i, count: moved)
            (_slotsPointer + i + n).moveInitialize(from: _slotsPointer + i, count: moved)
        } else {
            (_childrenPointer + i + n).moveInitialize(from: _childrenPointer + i, count: moved)
            (_countsPointer + i + n).moveInitialize(from: _countsPointer + i, count: moved)
        }
        _setWidth(w &+ n)
    }

    /// Closes the `n` items at `i`, already moved out: items after them move
    /// down by `n` and the width shrinks by `n`.
    @inlinable
    func _closeGap(at i: Int, _ n: Int) {
        let w = width
        let moved = w &- i &- n
        if height == 0 {
            (_elementsPointer + i).moveInitialize(from: _elementsPointer + i + n, count: moved)
            (_slotsPointer + i).moveInitialize(from: _slotsPointer + i + n, count: moved)
        } else {
            (_childrenPointer + i).moveInitialize(from: _childrenPointer + i + n, count: moved)
            (_countsPointer + i).moveInitialize(from: _countsPointer + i + n, count: moved)
        }
        _setWidth(w &- n)
    }

    /// Moves the items in `range` into `target`'s open gap at `position`
    /// (same height; a leaf's slots explicit on both sides). They are left
    /// uninitialized here: the caller closes the gap or drops them from the
    /// width.
    @inlinable
    func _moveItems(_ range: Range<Int>, into target: _ListNode, at position: Int) {
        let n = range.count
        let i = range.lowerBound
        if height == 0 {
            (target._elementsPointer + position).moveInitialize(from: _elementsPointer + i, count: n)
            (target._slotsPointer + position).moveInitialize(from: _slotsPointer + i, count: n)
        } else {
            (target._childrenPointer + position).moveInitialize(from: _childrenPointer + i, count: n)
            (target._countsPointer + position).moveInitialize(from: _countsPointer + i, count: n)
        }
    }

    /// Moves the items from `start` on to the end of `target` (same height,
    /// with room), leaving this node `start` items wide.
    @inlinable
    func _moveSuffix(from start: Int, appendingTo target: _ListNode) {
        let n = width &- start
        let end = target.width
        target._openGap(at: end, n)
        _moveItems(start ..< width, into: target, at: end)
        _setWidth(start)
    }

    /// Moves the first `n` items to the end of `target` (same height, with
    /// room).
    @inlinable
    func _movePrefix(_ n: Int, appendingTo target: _ListNode) {
        let end = target.width
        target._openGap(at: end, n)
        _moveItems(0 ..< n, into: target, at: end)
        _closeGap(at: 0, n)
    }

    /// Moves the last `n` items to the front of `target` (same height, with
    /// room).
    @inlinable
    func _moveSuffix(_ n: Int, prependingTo target: _ListNode) {
        let start = width &- n
        target._openGap(at: 0, n)
        _moveItems(start ..< width, into: target, at: 0)
        _setWidth(start)
    }

    /// ``_moveSuffix(_:prependingTo:)`` for leaves whose slots are
    /// implicit and not yet numbered (a build): moves elements only.
    @inlinable
    func _moveSuffixImplicit(_ n: Int, prependingTo target: _ListNode) {
        let start = width &- n
        let held = target.width
        (target._elementsPointer + n).moveInitialize(from: target._elementsPointer, count: held)
        target._elementsPointer.moveInitialize(from: _elementsPointer + start, count: n)
        target._setWidth(held &+ n)
        target.count = held &+ n
        _setWidth(start)
        count = start
    }

    /// Inserts `element` with `slot` at `i` in this leaf (with room and
    /// explicit slots).
    @inlinable
    func _insertElement(_ element: Element, slot: _ListSlot, at i: Int) {
        _openGap(at: i, 1)
        (_elementsPointer + i).initialize(to: element)
        (_slotsPointer + i).initialize(to: slot)
    }

    /// Removes and returns the element at `i` of this leaf (with explicit
    /// slots).
    @inlinable
    func _removeElement(at i: Int) -> Element {
        let element = (_elementsPointer + i).move()
        _closeGap(at: i, 1)
        return element
    }

    /// Inserts `child`, holding `count` elements, at `i` in this branch.
    @inlinable
    func _insertChild(_ child: _ListNode, count: Int, at i: Int) {
        _openGap(at: i, 1)
        (_childrenPointer + i).initialize(to: child)
        (_countsPointer + i).initialize(to: count)
    }

    /// Removes child `i` of this branch (releasing it).
    @inlinable
    func _removeChild(at i: Int) {
        (_childrenPointer + i).deinitialize(count: 1)
        _closeGap(at: i, 1)
    }
}

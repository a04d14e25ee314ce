// Copies of a list node: a plain copy, a relocation into a node of another
// capacity or slot layout, and the copy for a write, which takes a spare from
// the draining store's recycler (`_NodeRecycler`).

extension _ListNode {
    /// A copy of this node stamped `stamp`, with the same items (retained)
    /// and folds (their columns copied).
    ///
    /// - Complexity: O(width); one allocation (and the folds' columns).
    @inlinable
    func copy(stamp: VersionStamp) -> _ListNode {
        _relocated(stamp: stamp, capacity: itemCapacity, explicitSlots: _hasExplicitSlots, moving: false)
    }

    /// This node's items in a new node stamped `stamp`, with room for
    /// `capacity` items and, for a leaf, explicit slots when
    /// `explicitSlots`. With `moving`, the items are moved out of this node
    /// (left holding none: only for a node about to be released), else
    /// copied. Folds are carried over (moved or copied likewise).
    ///
    /// - Complexity: O(width); one allocation.
    @inlinable
    func _relocated(stamp: VersionStamp, capacity: Int, explicitSlots: Bool, moving: Bool) -> _ListNode {
        let explicit = explicitSlots || _hasExplicitSlots
        let node = _ListNode._make(
            height: height, capacity: capacity, explicitSlots: explicit,
            slotBase: explicit ? 0 : slotBase, stamp: stamp)
        _relocateItems(into: node, explicit: explicit, moving: moving)
        return node
    }

    /// A copy of this shared node for a write, stamped `stamp`, with the
    /// same capacity and items (retained) and explicit slots: in the
    /// storage of a spare node of that layout when the draining store's
    /// recycler has one, and this node kept for the recycler (see
    /// `_NodeRecycler`).
    ///
    /// - Complexity: O(width); one allocation when no spare fits.
    @inlinable
    func _copyForWrite(stamp: VersionStamp) -> _ListNode {
        _copyForWrite(stamp: stamp, explicitSlots: true)
    }

    /// ``_copyForWrite(stamp:)`` for a leaf whose slots are implicit, the
    /// copy keeping them (and the one written element's, see
    /// `_uniqueLeafForElementWrite`).
    @inlinable
    func _copyForWriteKeepingImplicitSlots(stamp: VersionStamp) -> _ListNode {
        #if FASTSTORE_INTERNAL_CHECKS
        precondition(height == 0 && !_hasExplicitSlots, "VersionedList: an implicit-slot copy of a node with slots")
        #endif
        return _copyForWrite(stamp: stamp, explicitSlots: false)
    }

    // NB: one body for both, inlined into each with `explicitSlots` a
    // constant, so that the other layout's branches fold away.
    @inlinable @inline(__always)
    func _copyForWrite(stamp: VersionStamp, explicitSlots explicit: Bool) -> _ListNode {
        guard let recycler = _TrackingContext._recycler else {
            return _relocated(stamp: stamp, capacity: itemCapacity, explicitSlots: explicit, moving: false)
        }
        return recycler._withUnsafeGuaranteedRef { recycler in
            let node: _ListNode
            let shape = _NodeRecycler._shape(height: height, capacity: itemCapacity, explicitSlots: explicit)
            if let spare = recycler.take(like: self, shape: shape) {
                node = spare
                node.stamp = stamp
            } else {
                node = _ListNode._make(height: height, capacity: itemCapacity, explicitSlots: explicit, stamp: stamp)
            }
            _relocateItems(into: node, explicit: explicit, moving: false)
            // NB: kept only when of the copy's layout, so that each layout's
            // spares come from copies of that layout, as many as they take.
            // A leaf whose implicit slots the copy made explicit (a second
            // element written) has no room for slots: a copy of its layout
            // (implicit) is rarer, and its storage would wait among the
            // spares while every take looked past it.
            if _hasExplicitSlots == explicit && _ListNode._isRecyclable(capacity: itemCapacity)
                && recycler.wants(stamp: self.stamp) {
                recycler.keep(self, shape: shape)
            }
            return node
        }
    }

    /// Whether a node with room for `capacity` items is small enough for
    /// the recycler to keep (`_NodeRecycler.maxItemBytes`).
    @inlinable @inline(__always)
    static func _isRecyclable(capacity: Int) -> Bool {
        capacity &* Swift.max(MemoryLayout<Element>.stride, MemoryLayout<_ListNode>.stride &+ MemoryLayout<Int>.stride)
            <= _NodeRecycler.maxItemBytes
    }

    /// Copies or moves this node's items, slots or counts, count and folds
    /// into `node` (empty, of the same height, with room for them). With
    /// `borrowing`, the items' bits are copied and not retained: `node`
    /// borrows them (see `_ListNode+Lending.swift`).
    @inlinable @inline(__always)
    func _relocateItems(into node: _ListNode, explicit: Bool, moving: Bool, borrowing: Bool = false) {
        let n = width
        if height == 0 {
            if moving {
                node._elementsPointer.moveInitialize(from: _elementsPointer, count: n)
            } else if borrowing {
                UnsafeMutableRawPointer(node._elementsPointer)
                    .copyMemory(from: _elementsPointer, byteCount: n &* MemoryLayout<Element>.stride)
            } else {
                _copyItems(from: _elementsPointer, to: node._elementsPointer, count: n)
            }
            if _hasExplicitSlots {
                node._slotsPointer.initialize(from: _slotsPointer, count: n)
                node._header.pointee.slotBase = 0
            } else if explicit {
                _initializeImplicitSlots(node._slotsPointer)
                node._header.pointee.slotBase = 0
            } else {
                node._header.pointee.slotBase = slotBase
                node._header.pointee.writtenIndex = _header.pointee.writtenIndex
                node._header.pointee.writtenStamp = _header.pointee.writtenStamp
            }
        } else {
            if moving {
                node._childrenPointer.moveInitialize(from: _childrenPointer, count: n)
            } else if borrowing {
                UnsafeMutableRawPointer(node._childrenPointer)
                    .copyMemory(from: _childrenPointer, byteCount: n &* MemoryLayout<_ListNode>.stride)
            } else {
                _copyItems(from: _childrenPointer, to: node._childrenPointer, count: n)
            }
            node._countsPointer.initialize(from: _countsPointer, count: n)
        }
        node._setWidth(n)
        node.count = count
        node.label = label
        if moving {
            _setWidth(0)
            node.folds = folds
            folds = nil
        } else if folds != nil || node.folds != nil {
            _copyFolds(into: node)
        }
    }

    /// Gives `node` (a copy of this node being made) this node's fold
    /// columns' values, or none when this node has none. A recycled node
    /// keeps its emptied chain (`_emptyForReuse`): it takes the values when
    /// it folds the same summaries, without allocating a column or a buffer
    /// per fold.
    ///
    /// NB: out of line: the copy of a node without folds only checks, and
    /// `_relocateItems` stays small enough to inline.
    ///
    /// - Complexity: O(folds + values).
    @inlinable @inline(never)
    func _copyFolds(into node: _ListNode) {
        guard let folds else {
            node.folds = nil
            return
        }
        if let spare = node.folds, spare.assignChain(from: folds) { return }
        node.folds = folds.copyChain()
    }
}

/// Copies `count` items into uninitialized memory. Trivial items go as raw
/// bytes; others one by one, so that code specialized for their type copies
/// them inline (a retain each) instead of through the runtime's
/// `swift_arrayInitWithCopy`, which calls the type's value witness per item.
///
/// - Complexity: O(`count`).
@inlinable @inline(__always)
internal func _copyItems<Item>(from source: UnsafeMutablePointer<Item>, to target: UnsafeMutablePointer<Item>, count: Int) {
    if _isPOD(Item.self) {
        target.initialize(from: source, count: count)
    } else {
        for i in 0 ..< count { (target + i).initialize(to: source[i]) }
    }
}

import Atomics
import CFastStore

// Lending: the path copy of an element write in a draining store takes the
// replaced node's items without a reference of its own, and the replaced node
// hands them over when the drain settles (docs/collections-engine.md,
// "Lent items").
//
// A write's path copy replaces a node the published state shares. Copying
// its items one by one retains each (a child, an element's references), and
// the settle that finds the replaced node dead releases each again: two
// reference-count operations per item for items that end where they were.
// Instead, in a draining store (its recycler installed) a node copied on an
// element write's path *borrows*: it takes the items' bits, and the node it
// replaces (the *lender*, which the recycler keeps) still owns them.
//
// - The borrower owns only what the write replaces: the child it copies in
//   turn, or the element written (retained once, so that a write through it
//   finds its storage shared and copies). `borrowed` has bit `i` set while
//   item `i` is the lender's.
// - A borrower is written through the element path only: every other write
//   (`makeUnique`, a relocation, folds, labels) sees a borrower as shared and
//   copies it, retaining every item, so structural writes never move or
//   release an item that is not theirs.
// - The borrower holds its lender (`pair`, retained), so the lent bits stay
//   valid however long the borrower lives; the lender points back at it
//   (unretained). The lender's `pair` is claimed atomically: one drain
//   lends a node at a time (two stores' states may share it).
// - The recycler holds the borrower too until the settle, so no other
//   thread finds it unique before then (a list the reducer sends away is
//   copied where it is written, and is not freed there); the drain finds
//   its own borrowers among the recycler's (`_isOwnBorrower`).
// - At the settle (and between actions, `releaseDead`), each lender is
//   resolved: dead (only the recycler holds it), it gives the lent items to
//   the borrower and releases only the ones the borrower replaced, then
//   becomes a spare; still held (an older state someone keeps), the borrower
//   retains the lent items. Either way no node lends or borrows after the
//   drain, and each item is held exactly as a copy would have held it.

extension _ListNode {
    /// The lending link (`_ListNodeHeader.pair`) and the lent-item bits
    /// (`borrowed`) as pointers to those fields alone. A node's lending is
    /// claimed and settled while other threads may read the node (a
    /// published state's): through `_header.pointee`, a write is an access
    /// of the whole header, which overlaps every other thread's read of
    /// it (its stamp, its count); through these, only the field, which no
    /// other thread reads.
    @inlinable @inline(__always)
    var _pairField: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        (UnsafeMutableRawPointer(_header) + MemoryLayout<Header>.offset(of: \Header.pair).unsafelyUnwrapped)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    @inlinable @inline(__always)
    var _borrowedField: UnsafeMutablePointer<UInt32> {
        (UnsafeMutableRawPointer(_header) + MemoryLayout<Header>.offset(of: \Header.borrowed).unsafelyUnwrapped)
            .assumingMemoryBound(to: UInt32.self)
    }

    /// The bit of `_ListNodeHeader.borrowed` that marks a borrower.
    @inlinable @inline(__always)
    static var _borrowing: UInt32 { 1 &<< 31 }

    /// Whether this node borrows items (see above). A borrower must not be
    /// written but through the element path.
    @inlinable @inline(__always)
    var _isBorrower: Bool { _header.pointee.borrowed != 0 }

    /// Whether `node` may be written in place by any write: uniquely
    /// referenced and owning all its items.
    @inlinable @inline(__always)
    static func _isUniqueOwner(_ node: inout _ListNode) -> Bool {
        isKnownUniquelyReferenced(&node) && node._header.pointee.borrowed == 0
    }

    // MARK: The element path

    /// Whether the element path may write `node` in place: uniquely
    /// referenced, or a borrower of this drain referenced only by the
    /// tree being written and the recycler.
    @inlinable @inline(__always)
    static func _isUniqueForElementWrite(_ node: inout _ListNode) -> Bool {
        isKnownUniquelyReferenced(&node) || _isOwnBorrower(&node)
    }

    /// Whether `node` is a borrower of the recycler installed on this
    /// thread (a drain's) that nothing but the tree being written and that
    /// recycler holds.
    // NB: a borrower is tested only by the drain that made it, which alone
    // writes its bookkeeping before the settle; any other thread sees it
    // held twice at least, and copies it.
    @inlinable @inline(never)
    static func _isOwnBorrower(_ node: inout _ListNode) -> Bool {
        guard let recycler = _TrackingContext._recycler else { return false }
        let address = Unmanaged.passUnretained(node).toOpaque()
        guard recycler._withUnsafeGuaranteedRef({ $0.lends(to: address) }) else { return false }
        // NB: the recycler's reference let go for the test (the tree's
        // keeps the node alive) and taken again.
        let unmanaged = Unmanaged<_ListNode>.fromOpaque(address)
        unmanaged.release()
        let unique = isKnownUniquelyReferenced(&node)
        _ = unmanaged.retain()
        return unique
    }

    /// Makes the root `node` unique and stamped `stamp` for a write of one
    /// element below it: a shared root branch is copied borrowing its
    /// children; a root leaf as `makeUnique(_:stamp:)`.
    @inlinable @inline(__always)
    static func _makeRootUniqueForElementWrite(_ node: inout _ListNode, stamp: VersionStamp) {
        guard node.height > 0 else { return makeUnique(&node, stamp: stamp) }
        if _isUniqueForElementWrite(&node) {
            node.stamp = stamp
        } else {
            node = node._copyForElementWrite(stamp: stamp, explicitSlots: true, writing: -1)
        }
    }

    /// Makes child `k` of this unique node unique for a write below it (a
    /// branch on an element write's path), stamps it, and returns it: a
    /// borrowed copy in a draining store (see above).
    @inlinable @inline(__always)
    func _uniqueChildForElementWrite(_ k: Int, stamp: VersionStamp) -> _ListNode {
        let slot = _childrenPointer + k
        let lent = _header.pointee.borrowed & (1 &<< UInt32(k)) != 0
        // NB: a lent child is the lender's, which the published state
        // holds: never written in place, however many references it has.
        if !lent && _ListNode._isUniqueForElementWrite(&slot.pointee) {
            let child = slot.pointee
            child.stamp = stamp
            return child
        }
        let copy = slot.pointee._copyForElementWrite(stamp: stamp, explicitSlots: true, writing: -1)
        _store(copy, at: k, lent: lent)
        return copy
    }

    /// Makes the leaf at child `k` of this unique node unique for a write
    /// of its element at `offset` alone, stamps it, and returns it (see
    /// `uniqueLeaf(containing:stamp:)` for its slots).
    @inlinable @inline(__always)
    func _uniqueLeafForElementWrite(_ k: Int, offset: Int, stamp: VersionStamp) -> _ListNode {
        let slot = _childrenPointer + k
        let lent = _header.pointee.borrowed & (1 &<< UInt32(k)) != 0
        let header = UnsafeMutableRawPointer(slot).load(as: Unmanaged<_ListNode>.self)._withUnsafeGuaranteedRef { $0._header }
        let keepsImplicit = header.pointee.explicitSlots == 0
            && (header.pointee.writtenIndex < 0 || Int(header.pointee.writtenIndex) == offset)
        if !lent && _ListNode._isUniqueForElementWrite(&slot.pointee) {
            let leaf = slot.pointee
            if header.pointee.explicitSlots == 0 && !keepsImplicit {
                // Its slots become explicit: the items move to a new node,
                // which must own them all.
                if leaf._isBorrower { leaf._stopBorrowing() }
                let relocated = leaf._relocated(stamp: stamp, capacity: leaf.itemCapacity, explicitSlots: true, moving: true)
                slot.pointee = relocated
                return relocated
            }
            if leaf._isBorrower { leaf._ownItem(offset) }
            leaf.stamp = stamp
            return leaf
        }
        let copy = slot.pointee._copyForElementWrite(stamp: stamp, explicitSlots: !keepsImplicit, writing: offset)
        _store(copy, at: k, lent: lent)
        return copy
    }

    /// Puts `child` at slot `k` of this unique branch: over a lent child
    /// without releasing it (the lender's), else replacing (releasing) it.
    @inlinable @inline(__always)
    func _store(_ child: _ListNode, at k: Int, lent: Bool) {
        if lent {
            (_childrenPointer + k).initialize(to: child)
            _header.pointee.borrowed &= ~(1 &<< UInt32(k))
        } else {
            _childrenPointer[k] = child
        }
    }

    /// A copy of this node for a write on an element write's path, stamped
    /// `stamp`: borrowing its items when a store is draining and can keep
    /// this node as the lender (see above), owning only the element at
    /// `writing` (a leaf; -1 for a branch); else as `_copyForWrite`.
    ///
    /// - Complexity: O(width) bits copied, one retain (the written element)
    ///   and no allocation when the recycler has a spare.
    // NB: never inlined: inlined in a list's `_modify`, it grew the
    // coroutine's frame past its inline room (an allocation per write).
    @inlinable @inline(never)
    func _copyForElementWrite(stamp: VersionStamp, explicitSlots explicit: Bool, writing offset: Int) -> _ListNode {
        guard let recycler = _TrackingContext._recycler,
              height > 0 || !_isPOD(Element.self) else {
            return _copyForWrite(stamp: stamp, explicitSlots: explicit)
        }
        return recycler._withUnsafeGuaranteedRef { recycler in
            guard _hasExplicitSlots == explicit && _ListNode._isRecyclable(capacity: itemCapacity)
                    && recycler.wants(stamp: self.stamp) && recycler.hasRoom else {
                return _copyForWrite(stamp: stamp, explicitSlots: explicit)
            }
            let shape = _NodeRecycler._shape(height: height, capacity: itemCapacity, explicitSlots: explicit)
            let node: _ListNode
            if let spare = recycler.take(like: self, shape: shape) {
                node = spare
                node.stamp = stamp
            } else {
                node = _ListNode._make(height: height, capacity: itemCapacity, explicitSlots: explicit, stamp: stamp)
            }
            // NB: claimed atomically: a node another drain lends (two stores'
            // states may share it) or a borrower not yet settled is copied
            // as before, its items retained.
            guard _cfaststore_pair_claim(_pairField, Unmanaged.passUnretained(node).toOpaque()) else {
                _relocateItems(into: node, explicit: explicit, moving: false)
                recycler.keep(self, shape: shape)
                return node
            }
            _relocateItems(into: node, explicit: explicit, moving: false, borrowing: true)
            let n = UInt32(truncatingIfNeeded: width)
            node._header.pointee.borrowed = _ListNode._borrowing | (n == 0 ? 0 : ~0 &>> (32 &- n))
            _cfaststore_pair_store(node._pairField, Unmanaged.passRetained(self).toOpaque())
            if offset >= 0 { node._ownItem(offset) }
            recycler.keep(lender: self, borrower: node, shape: shape)
            return node
        }
    }

    // MARK: Owning lent items

    /// Takes a reference of this borrower's own to item `i`, if lent.
    @inlinable @inline(__always)
    func _ownItem(_ i: Int) {
        let bit: UInt32 = 1 &<< UInt32(i)
        let borrowed = _cfaststore_borrowed_load(_borrowedField)
        guard borrowed & bit != 0 else { return }
        if height == 0 {
            // NB: a copy of the element (its references retained) left
            // alive in a temporary, so that the slot's bits, which it did
            // not own, now hold those references. The slot is not written:
            // other threads may be reading it (a published state's node).
            withUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { copy in
                copy.baseAddress.unsafelyUnwrapped.initialize(to: _elementsPointer[i])
            }
        } else {
            _ = UnsafeMutableRawPointer(_childrenPointer).assumingMemoryBound(to: Unmanaged<_ListNode>.self)[i].retain()
        }
        _cfaststore_borrowed_store(_borrowedField, borrowed & ~bit)
    }

    /// Takes references of this borrower's own to every lent item; it
    /// stays paired with its lender.
    @inlinable
    func _ownLentItems() {
        var lent = _cfaststore_borrowed_load(_borrowedField) & ~_ListNode._borrowing
        while lent != 0 {
            _ownItem(lent.trailingZeroBitCount)
            lent &= lent &- 1
        }
    }

    /// Ends this borrower's borrowing before the settle: it takes its own
    /// references to the lent items and lets its lender go, which stays
    /// claimed by this drain, paired with no borrower (``_unpaired``), and
    /// which the settle then treats as any kept node.
    @inlinable
    func _stopBorrowing() {
        _ownLentItems()
        _cfaststore_borrowed_store(_borrowedField, 0)
        guard let paired = _cfaststore_pair_load(_pairField) else { return }
        _cfaststore_pair_store(_pairField, nil)
        let lender = Unmanaged<_ListNode>.fromOpaque(paired)
        lender._withUnsafeGuaranteedRef { _cfaststore_pair_store($0._pairField, _ListNode._unpaired) }
        lender.release()
    }

    /// What a lender's `pair` holds from its borrower's ``_stopBorrowing()``
    /// to the settle: still claimed, so that no other drain lends it
    /// meanwhile (a node two stores' states share): the settle of the
    /// drain that claimed it must find no other drain's borrower there.
    /// Never dereferenced.
    @inlinable static var _unpaired: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1).unsafelyUnwrapped }

    // MARK: Settling a lender

    /// Releases item `i` of this node, as freeing it would.
    @inlinable @inline(__always)
    func _releaseItem(_ i: Int) {
        if height == 0 {
            _ = (_elementsPointer + i).move()
        } else {
            UnsafeMutableRawPointer(_childrenPointer).assumingMemoryBound(to: Unmanaged<_ListNode>.self)[i].release()
        }
    }

    /// The recycler's settle of a node it keeps as a lender, at `slot`
    /// (the recycler's reference): resolves the lending (see above) and
    /// returns whether the node died (then emptied, a spare). With
    /// `keepingHeld` (between actions), a lender still held keeps lending.
    @inlinable
    static func _settleLender(_ slot: UnsafeMutablePointer<AnyObject>, keepingHeld: Bool) -> Bool {
        // NB: tested as the node's class: as `AnyObject`, unoptimized
        // builds never found it unique.
        func isUnique() -> Bool { slot.withMemoryRebound(to: _ListNode.self, capacity: 1) { isKnownUniquelyReferenced(&$0.pointee) } }
        let node = Unmanaged<_ListNode>.fromOpaque(UnsafeMutableRawPointer(slot).load(as: UnsafeRawPointer.self))
        return node._withUnsafeGuaranteedRef { lender in
            guard let paired = _cfaststore_pair_load(lender._pairField), paired != _unpaired else {
                // Its borrower stopped borrowing: a kept node, claimed by
                // this drain until resolved (dead, or the batch's settle).
                if isUnique() {
                    // NB: the last other holder (a reader of an older
                    // state, on another thread) released it: order its
                    // reads before the emptying's writes.
                    atomicMemoryFence(ordering: .acquiring)
                    _cfaststore_pair_store(lender._pairField, nil)
                    lender._emptyForReuse()
                    return true
                }
                if !keepingHeld { _cfaststore_pair_store(lender._pairField, nil) }
                return false
            }
            // NB: the borrower's reference let go for the test (the
            // recycler's keeps the lender alive), taken again if the
            // lending goes on.
            node.release()
            let borrower = Unmanaged<_ListNode>.fromOpaque(paired)
            if isUnique() {
                // NB: as above, before the lender's items and fold values
                // are given away or released.
                atomicMemoryFence(ordering: .acquiring)
                borrower._withUnsafeGuaranteedRef { lender._give(to: $0) }
                return true
            }
            if keepingHeld {
                _ = node.retain()
                return false
            }
            borrower._withUnsafeGuaranteedRef { borrower in
                borrower._ownLentItems()
                _cfaststore_borrowed_store(borrower._borrowedField, 0)
                _cfaststore_pair_store(borrower._pairField, nil)
            }
            _cfaststore_pair_store(lender._pairField, nil)
            return false
        }
    }

    /// Hands this dead lender's lent items to `borrower` and releases the
    /// ones the borrower replaced; leaves this node empty (a spare) and
    /// neither node paired.
    @inlinable
    func _give(to borrower: _ListNode) {
        #if FASTSTORE_INTERNAL_CHECKS
        precondition(borrower.width == width && borrower.height == height, "_ListNode: a borrower changed shape")
        #endif
        // NB: the items the borrower replaced only, a bit each.
        let n = UInt32(truncatingIfNeeded: width)
        var replaced = ~_cfaststore_borrowed_load(borrower._borrowedField) & (n == 0 ? 0 : ~0 &>> (32 &- n))
        while replaced != 0 {
            _releaseItem(replaced.trailingZeroBitCount)
            replaced &= replaced &- 1
        }
        _setWidth(0)
        count = 0
        // NB: kept, emptied, as `_emptyForReuse` keeps them.
        folds?.removeAllKeepingCapacityInChain()
        _cfaststore_borrowed_store(borrower._borrowedField, 0)
        _cfaststore_pair_store(borrower._pairField, nil)
        _cfaststore_pair_store(_pairField, nil)
    }

    /// A borrower's part of `deinit`: releases its own items only, and its
    /// lender.
    // NB: not inlinable: a class's deinit is never specialized.
    @usableFromInline
    func _deinitBorrower() {
        let lent = _header.pointee.borrowed
        for i in 0 ..< width where lent & (1 &<< UInt32(i)) == 0 { _releaseItem(i) }
        if let paired = _cfaststore_pair_load(_pairField) {
            let lender = Unmanaged<_ListNode>.fromOpaque(paired)
            lender._withUnsafeGuaranteedRef { _cfaststore_pair_store($0._pairField, nil) }
            lender.release()
        }
    }
}

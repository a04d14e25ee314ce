/// The identity and last write of one element slot of a ``VersionedList``.
///
/// `identity` is drawn from the stamp counter when the element is inserted
/// and kept while the element stays in the list (across node copies, splits,
/// merges and in-place writes); `written` is the stamp of the element's last
/// write (its identity when it was never written since insertion). The diff
/// aligns two versions by identity and reports an update where `written`
/// differs.
@usableFromInline
internal struct _ListSlot: Hashable, Sendable {
    @usableFromInline var identity: UInt64
    @usableFromInline var written: UInt64

    @inlinable init(identity: UInt64, written: UInt64) {
        self.identity = identity
        self.written = written
    }

    @inlinable init(fresh identity: UInt64) {
        self.identity = identity
        self.written = identity
    }
}

/// The fixed part of a ``_ListNode``; its items follow it in the same
/// allocation (see `_ListNode+Storage.swift`).
///
/// NB: ten words, so the items start 16-byte aligned after the object's
/// own two words; the small fields are packed in pairs to keep it so.
@usableFromInline
internal struct _ListNodeHeader<Element> {
    /// The stamp of the node's latest write.
    @usableFromInline var stamp: VersionStamp
    /// The number of elements in this subtree.
    @usableFromInline var count: Int
    /// 0 for a leaf.
    @usableFromInline let height: Int16
    /// 1 when a leaf holds a slot per element; 0 while its slots are
    /// implicit (see `slotBase`). Always 1 in branches (unused).
    @usableFromInline let explicitSlots: Int16
    /// How many items the allocation holds.
    @usableFromInline let capacity: Int32
    /// The items held: elements of a leaf, children of a branch.
    @usableFromInline var width: Int
    /// A leaf's order label, for the collections that find an element by
    /// its leaf (`IdentifiedList`: labels increase along the list, 0 for
    /// a leaf not labelled yet); carried by copies and relocations, 0 in a
    /// new node and unused in branches and plain lists.
    @usableFromInline var label: UInt64
    /// While a leaf's slots are implicit, slot `i` is
    /// `_ListSlot(fresh: slotBase + i)` (a bulk-built leaf), except the
    /// written element's (see `writtenIndex`).
    @usableFromInline var slotBase: UInt64
    /// While a leaf's slots are implicit: the offset of the one element
    /// written since the leaf was built, or -1. Its slot is
    /// `_ListSlot(identity: slotBase + writtenIndex, written: writtenStamp)`;
    /// a write of a second element makes the slots explicit (see
    /// `_uniqueLeafForElementWrite`).
    @usableFromInline var writtenIndex: Int32
    /// In a node that borrows the items of the node it replaced (see
    /// `_ListNode+Lending.swift`): `_ListNode._borrowing`, plus bit `i`
    /// while item `i` is still the lender's (this node holds its bits, not
    /// a reference of its own). 0 in every other node.
    @usableFromInline var borrowed: UInt32
    /// The last write stamp of the element at `writtenIndex`.
    @usableFromInline var writtenStamp: UInt64
    /// The attached folds' columns (see `_ListFoldColumn`): in a branch,
    /// each child's summaries; in a root leaf, the folds' names; nil in a
    /// tree without folds and in non-root leaves.
    @usableFromInline var folds: _ListFoldColumn<Element>?
    /// While a drain lends this node's items (see `_ListNode+Lending.swift`):
    /// in the borrower, its lender (retained); in the lender, its borrower
    /// (unretained). nil otherwise.
    @usableFromInline var pair: UnsafeMutableRawPointer?

    @inlinable
    init(stamp: VersionStamp, height: Int, capacity: Int, explicitSlots: Bool, slotBase: UInt64) {
        self.stamp = stamp
        self.count = 0
        self.height = Int16(truncatingIfNeeded: height)
        self.explicitSlots = explicitSlots ? 1 : 0
        self.capacity = Int32(truncatingIfNeeded: capacity)
        self.width = 0
        self.label = 0
        self.slotBase = slotBase
        self.writtenIndex = -1
        self.borrowed = 0
        self.writtenStamp = 0
        self.folds = nil
        self.pair = nil
    }
}

/// A node of a ``VersionedList``'s tree: a B+tree used as a rope.
///
/// A leaf (`height == 0`) holds up to ``leafCapacity`` elements plus their
/// slots; a branch holds 2...``branchCapacity`` children of height
/// `height - 1` and each child's element count. Every node knows the
/// element count of its subtree, so that index lookup is a descent. Every
/// write of a node takes a fresh stamp, and a parent is written with every
/// write below it, so stamps never decrease toward the root.
///
/// One allocation per node: the items live in the node's own tail storage
/// (a `ManagedBuffer`), elements then slots in a leaf, children then counts
/// in a branch. A write to a shared list therefore allocates one object per
/// level of its path. Capacities: a branch holds `branchCapacity + 1`
/// children (an insertion overfills it before it splits), a non-root leaf
/// `leafCapacity + 1` elements; a root leaf holds what it was built with
/// and grows when inserted into (a short list stays small).
///
/// Nodes are shared between versions and mutated in place only when uniquely
/// referenced (path copying otherwise).
///
/// NB: the header and the items are reached through pointers into the
/// node, not through a stored property: no dynamic exclusivity check per
/// access. A node is written only while uniquely referenced from a
/// collection value that is itself being mutated, whose exclusivity the
/// compiler enforces statically.
@usableFromInline
internal final class _ListNode<Element>: ManagedBuffer<_ListNodeHeader<Element>, UInt8> {
    @usableFromInline typealias Header = _ListNodeHeader<Element>

    @inlinable @inline(__always)
    var _header: UnsafeMutablePointer<Header> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    /// The stamp of the node's latest write.
    @inlinable var stamp: VersionStamp {
        @inline(__always) get { _header.pointee.stamp }
        @inline(__always) set { _header.pointee.stamp = newValue }
    }

    /// The number of elements in this subtree.
    @inlinable var count: Int {
        @inline(__always) get { _header.pointee.count }
        @inline(__always) set { _header.pointee.count = newValue }
    }

    /// 0 for a leaf.
    @inlinable var height: Int {
        @inline(__always) get { Int(_header.pointee.height) }
    }

    /// Items held directly: elements of a leaf, children of a branch.
    @inlinable var width: Int {
        @inline(__always) get { _header.pointee.width }
    }

    /// How many items the node's storage holds.
    @inlinable var itemCapacity: Int {
        @inline(__always) get { Int(_header.pointee.capacity) }
    }

    /// See `_ListNodeHeader.label`.
    @inlinable var label: UInt64 {
        @inline(__always) get { _header.pointee.label }
        @inline(__always) set { _header.pointee.label = newValue }
    }

    /// See `_ListNodeHeader.slotBase`.
    @inlinable var slotBase: UInt64 {
        @inline(__always) get { _header.pointee.slotBase }
    }

    /// See `_ListNodeHeader.folds`.
    @inlinable var folds: _ListFoldColumn<Element>? {
        @inline(__always) get { _header.pointee.folds }
        @inline(__always) set { _header.pointee.folds = newValue }
    }

    @inlinable var isLeaf: Bool { height == 0 }

    deinit {
        if _header.pointee.borrowed != 0 { return _deinitBorrower() }
        if height == 0 {
            _elementsPointer.deinitialize(count: width)
        } else {
            // NB: the children are released as plain references. A class's
            // deinit is never specialized, and `deinitialize(count:)` of
            // `_ListNode<Element>` went through the runtime's generic array
            // destroy: a metadata lookup, then a value-witness call per
            // child (a 16-child branch freed for about 500 instructions).
            let children = UnsafeMutableRawPointer(_childrenPointer).assumingMemoryBound(to: Unmanaged<_ListNode>.self)
            for k in 0 ..< width { children[k].release() }
        }
    }

    // MARK: Items

    /// The elements of a leaf (none in a branch).
    @inlinable var elements: _NodeLane<Element, Element> {
        @inline(__always) get { _NodeLane(self, _elementsPointer, height == 0 ? width : 0) }
    }

    /// A leaf's slots, or none while they are implicit (see `slotBase`);
    /// none in a branch.
    @inlinable var slots: _NodeLane<Element, _ListSlot> {
        @inline(__always) get {
            _NodeLane(self, _slotsPointer, height == 0 && _header.pointee.explicitSlots != 0 ? width : 0)
        }
    }

    /// The children of a branch (none in a leaf).
    @inlinable var children: _NodeLane<Element, _ListNode<Element>> {
        @inline(__always) get { _NodeLane(self, _childrenPointer, height == 0 ? 0 : width) }
    }

    /// The element count of each child, pairwise with `children` (none in a
    /// leaf).
    ///
    /// NB: kept in the parent so that finding the child holding an index
    /// scans one contiguous run instead of touching up to 16 child objects
    /// (a cache miss each in a large cold tree).
    @inlinable var counts: _NodeLane<Element, Int> {
        @inline(__always) get { _NodeLane(self, _countsPointer, height == 0 ? 0 : width) }
    }

    // MARK: Slots

    /// Whether this leaf's slots are implicit (see `slotBase`).
    @inlinable var hasImplicitSlots: Bool {
        _header.pointee.explicitSlots == 0 && width > 0
    }

    /// Slot `i` of this leaf.
    @inlinable @inline(__always)
    func slot(_ i: Int) -> _ListSlot {
        if _header.pointee.explicitSlots != 0 { return _slotsPointer[i] }
        let identity = slotBase &+ UInt64(i)
        return _ListSlot(identity: identity, written: i == Int(_header.pointee.writtenIndex) ? _header.pointee.writtenStamp : identity)
    }

    /// Marks element `i` of this (unique) leaf written by the write
    /// `stamp`. A leaf with implicit slots must have no written element
    /// but this one (`_uniqueLeafForElementWrite` sees to it).
    @inlinable @inline(__always)
    func setWritten(_ i: Int, stamp: UInt64) {
        if _header.pointee.explicitSlots != 0 {
            _slotsPointer[i].written = stamp
        } else {
            // NB: checked in every build (one comparison, on this path
            // only): a lost write stamp would hide the write from the diff.
            precondition(
                _header.pointee.writtenIndex < 0 || Int(_header.pointee.writtenIndex) == i,
                "VersionedList: internal error: a second written element in a leaf with implicit slots")
            _header.pointee.writtenIndex = Int32(truncatingIfNeeded: i)
            _header.pointee.writtenStamp = stamp
        }
    }

    /// Calls `body` with this leaf's slots (materialized in temporary
    /// storage when implicit).
    @inlinable
    func withSlots<R>(_ body: (UnsafeBufferPointer<_ListSlot>) throws -> R) rethrows -> R {
        let n = width
        if _header.pointee.explicitSlots != 0 {
            return try withExtendedLifetime(self) { try body(UnsafeBufferPointer(start: _slotsPointer, count: n)) }
        }
        return try withUnsafeTemporaryAllocation(of: _ListSlot.self, capacity: n) { buffer in
            _initializeImplicitSlots(buffer.baseAddress.unsafelyUnwrapped)
            return try body(UnsafeBufferPointer(buffer))
        }
    }

    /// Writes this leaf's implicit slots (its written element's included)
    /// into `target[0 ..< width]`, uninitialized.
    @inlinable @inline(__always)
    func _initializeImplicitSlots(_ target: UnsafeMutablePointer<_ListSlot>) {
        let base = slotBase
        for i in 0 ..< width { (target + i).initialize(to: _ListSlot(fresh: base &+ UInt64(i))) }
        let written = Int(_header.pointee.writtenIndex)
        if written >= 0 { target[written].written = _header.pointee.writtenStamp }
    }

    // MARK: Shape

    /// NB: a write to a shared list copies one leaf and every branch on its
    /// path, and the old path is freed when the last older version goes:
    /// both cost per element or child held, so narrow nodes are cheaper.
    /// Elements that need no retain or release (`Int`, plain structs of
    /// them) are copied as raw bytes: 64 per leaf keeps iteration over long
    /// contiguous runs. Other elements (a `String` field is enough) are
    /// copied one by one through their value witnesses: 16 per leaf.
    /// Branches hold 16 children. Measured with `scripts/instructions.sh
    /// todo:1000 todo:1000000` (todo items hold a `String`): from leaves of
    /// 64 and branches of 32, 24,587 → 20,893 instructions per dispatch at
    /// 1,000 items, and fewer still at 1,000,000.
    @inlinable static var leafCapacity: Int { _isPOD(Element.self) ? 64 : 16 }
    @inlinable static var leafMinimum: Int { leafCapacity / 2 }
    @inlinable static var branchCapacity: Int { 16 }
    @inlinable static var branchMinimum: Int { 8 }

    @inlinable var maximumWidth: Int { height == 0 ? Self.leafCapacity : Self.branchCapacity }
    @inlinable var minimum: Int { height == 0 ? Self.leafMinimum : Self.branchMinimum }

    // MARK: Lookup

    /// The child holding element `index` (`0 ..< count`), and the element's
    /// offset in it.
    ///
    /// - Complexity: O(branch width), reading the children's counts.
    @inlinable @inline(__always)
    func child(containing index: Int) -> (child: Int, offset: Int) {
        var offset = index
        var k = 0
        let counts = _countsPointer
        while true {
            let c = counts[k]
            if offset < c { return (k, offset) }
            offset -= c
            k += 1
        }
    }

    /// The child an insertion at `index` (`0 ... count`) goes into, and the
    /// offset in it: at a child boundary, the left child's end, or with
    /// `preferringRight` the right child's start.
    @inlinable
    func child(forInsertionAt index: Int, preferringRight: Bool = false) -> (child: Int, offset: Int) {
        var offset = index
        let last = width - 1
        let counts = _countsPointer
        var k = 0
        while k < last {
            let c = counts[k]
            if offset < c || (offset == c && !preferringRight) { return (k, offset) }
            offset -= c
            k += 1
        }
        return (last, offset)
    }

    /// The element at `index`, without recording.
    ///
    /// - Complexity: O(log n).
    @inlinable
    func element(at index: Int) -> Element {
        var node = Unmanaged.passUnretained(self)
        var offset = index
        while node._withUnsafeGuaranteedRef({ $0.height }) > 0 {
            node = node._withUnsafeGuaranteedRef { branch in
                let (k, o) = branch.child(containing: offset)
                offset = o
                return Unmanaged.passUnretained(branch._childrenPointer[k])
            }
        }
        return withExtendedLifetime(self) { node._withUnsafeGuaranteedRef { $0._elementsPointer[offset] } }
    }

    /// The slot at `index`.
    @inlinable
    func slot(at index: Int) -> _ListSlot {
        var node = self
        var offset = index
        while node.height > 0 {
            let (k, o) = node.child(containing: offset)
            node = node.children[k]
            offset = o
        }
        return node.slot(offset)
    }

    /// Calls `body` with each leaf's elements and slots, in order.
    ///
    /// - Complexity: O(n).
    @inlinable
    func forEachLeaf(_ body: (_ListNode<Element>) throws -> Void) rethrows {
        if height == 0 {
            try body(self)
        } else {
            for child in children { try child.forEachLeaf(body) }
        }
    }
}

// NB: no `Sendable` conformance: `ManagedBuffer` is explicitly not
// `Sendable`. The lists that hold nodes are `@unchecked Sendable` (a node is
// shared between threads only while no one writes it in place).

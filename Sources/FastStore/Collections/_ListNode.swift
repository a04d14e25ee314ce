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

/// A node of a ``VersionedList``'s tree: a B+tree used as a rope.
///
/// A leaf (`height == 0`) holds up to ``leafCapacity`` elements in contiguous
/// storage plus their slots; a branch holds 2...``branchCapacity`` children of
/// height `height - 1`. Every node knows the element count of its subtree,
/// so that index lookup is a descent. Every write of a node takes a fresh
/// stamp, and a parent is written with every write below it, so stamps never
/// decrease toward the root.
///
/// Nodes are shared between versions and mutated in place only when uniquely
/// referenced (path copying otherwise).
///
/// NB: the stored properties opt out of dynamic exclusivity checking
/// (`@exclusivity(unchecked)`): a node is written only while uniquely
/// referenced from a collection value that is itself being mutated, whose
/// exclusivity the compiler enforces statically, and the per-access check
/// (a thread-local access-set insertion) was the largest cost of a diff.
@usableFromInline
internal final class _ListNode<Element> {
    /// The stamp of the node's latest write.
    @usableFromInline @exclusivity(unchecked) var stamp: VersionStamp
    /// The number of elements in this subtree.
    @usableFromInline @exclusivity(unchecked) var count: Int
    /// 0 for a leaf.
    @usableFromInline let height: Int
    /// Leaf storage (empty in branches).
    @usableFromInline @exclusivity(unchecked) var elements: ContiguousArray<Element>
    /// One slot per element, or empty while the leaf's slots are implicit
    /// (see `slotBase`); always empty in branches.
    @usableFromInline @exclusivity(unchecked) var slots: ContiguousArray<_ListSlot>
    /// While `slots` is empty in a non-empty leaf, slot `i` is
    /// `_ListSlot(fresh: slotBase + i)`: a bulk-built leaf whose elements
    /// were never written.
    ///
    /// NB: built lists then cost 16 fewer bytes per element and
    /// one allocation fewer per leaf; the first write to a leaf
    /// materializes its slots (it copies them anyway when shared).
    @usableFromInline @exclusivity(unchecked) var slotBase: UInt64
    /// Branch storage (empty in leaves).
    @usableFromInline @exclusivity(unchecked) var children: ContiguousArray<_ListNode<Element>>
    /// The element count of each child, pairwise with `children` (empty in
    /// leaves).
    ///
    /// NB: kept in the parent so that finding the child holding an index
    /// scans one contiguous array instead of touching up to 32 child
    /// objects (a cache miss each in a large cold tree).
    @usableFromInline @exclusivity(unchecked) var counts: ContiguousArray<Int>
    /// The attached folds' columns (see `_ListFoldColumn`): in a branch,
    /// each child's summaries; in a root leaf, the folds' names; nil in a
    /// tree without folds and in non-root leaves.
    ///
    /// NB: one optional reference, so a list without folds pays 8 bytes
    /// per node (none with glibc's 16-byte size classes: 88 bytes round to
    /// the same 96 as 80) and one nil test per node written.
    @usableFromInline @exclusivity(unchecked) var folds: _ListFoldColumn<Element>?

    @inlinable
    init(leaf elements: ContiguousArray<Element>, slots: ContiguousArray<_ListSlot>, stamp: VersionStamp) {
        self.stamp = stamp
        self.count = elements.count
        self.height = 0
        self.elements = elements
        self.slots = slots
        self.slotBase = 0
        self.children = []
        self.counts = []
        self.folds = nil
    }

    /// A leaf whose slots are implicit: fresh identities from `slotBase`.
    @inlinable
    init(leaf elements: ContiguousArray<Element>, slotBase: UInt64, stamp: VersionStamp) {
        self.stamp = stamp
        self.count = elements.count
        self.height = 0
        self.elements = elements
        self.slots = []
        self.slotBase = slotBase
        self.children = []
        self.counts = []
        self.folds = nil
    }

    @inlinable
    init(
        branch children: ContiguousArray<_ListNode<Element>>, counts: ContiguousArray<Int>,
        height: Int, count: Int, stamp: VersionStamp
    ) {
        self.stamp = stamp
        self.count = count
        self.height = height
        self.elements = []
        self.slots = []
        self.slotBase = 0
        self.children = children
        self.counts = counts
        self.folds = nil
    }

    /// A branch over `children`, taking their counts.
    @inlinable
    convenience init(branch children: ContiguousArray<_ListNode<Element>>, height: Int, stamp: VersionStamp) {
        let counts = ContiguousArray(children.lazy.map(\.count))
        self.init(branch: children, counts: counts, height: height, count: counts.reduce(0, +), stamp: stamp)
    }

    /// A copy sharing the storage buffers (copied on their first write).
    @inlinable
    func copy(stamp: VersionStamp) -> _ListNode<Element> {
        let copy: _ListNode
        if height == 0 {
            copy = _ListNode(leaf: elements, slots: slots, stamp: stamp)
            copy.slotBase = slotBase
        } else {
            copy = _ListNode(branch: children, counts: counts, height: height, count: count, stamp: stamp)
        }
        if let folds { copy.folds = folds.copyChain() }
        return copy
    }

    @inlinable var isLeaf: Bool { height == 0 }

    // MARK: Slots

    /// Whether this leaf's slots are implicit (see `slotBase`).
    @inlinable var hasImplicitSlots: Bool { slots.isEmpty && !elements.isEmpty }

    /// Slot `i` of this leaf.
    @inlinable @inline(__always)
    func slot(_ i: Int) -> _ListSlot {
        slots.isEmpty ? _ListSlot(fresh: slotBase &+ UInt64(i)) : slots[i]
    }

    /// Gives this (unique) leaf explicit slots, before a write.
    @inlinable @inline(__always)
    func materializeSlots() {
        guard hasImplicitSlots else { return }
        let base = slotBase
        let n = elements.count
        slots = ContiguousArray(unsafeUninitializedCapacity: Self.leafCapacity) { buffer, initialized in
            for i in 0 ..< n {
                (buffer.baseAddress.unsafelyUnwrapped + i).initialize(to: _ListSlot(fresh: base &+ UInt64(i)))
            }
            initialized = n
        }
    }

    /// Calls `body` with this leaf's slots (materialized in temporary
    /// storage when implicit).
    @inlinable
    func withSlots<R>(_ body: (UnsafeBufferPointer<_ListSlot>) throws -> R) rethrows -> R {
        if !hasImplicitSlots { return try slots.withUnsafeBufferPointer(body) }
        let base = slotBase
        let n = elements.count
        return try withUnsafeTemporaryAllocation(of: _ListSlot.self, capacity: n) { buffer in
            for i in 0 ..< n {
                (buffer.baseAddress.unsafelyUnwrapped + i).initialize(to: _ListSlot(fresh: base &+ UInt64(i)))
            }
            return try body(UnsafeBufferPointer(buffer))
        }
    }

    /// Items held directly: elements of a leaf, children of a branch.
    @inlinable var width: Int { height == 0 ? elements.count : children.count }

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

    @inlinable var capacity: Int { height == 0 ? Self.leafCapacity : Self.branchCapacity }
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
        return counts.withUnsafeBufferPointer { counts in
            while true {
                let c = counts[k]
                if offset < c { return (k, offset) }
                offset -= c
                k += 1
            }
        }
    }

    /// The child an insertion at `index` (`0 ... count`) goes into, and the
    /// offset in it (an insertion at a child boundary goes to the left child's
    /// end).
    @inlinable
    func child(forInsertionAt index: Int) -> (child: Int, offset: Int) {
        var offset = index
        let last = counts.count - 1
        var k = 0
        while k < last {
            let c = counts[k]
            if offset <= c { return (k, offset) }
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
        var node = self
        var offset = index
        while node.height > 0 {
            let (k, o) = node.child(containing: offset)
            node = node.children[k]
            offset = o
        }
        return node.elements[offset]
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

extension _ListNode: @unchecked Sendable where Element: Sendable {}

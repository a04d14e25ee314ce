// Bulk construction of a list tree from contiguous elements.

extension _ListNode {
    /// Builds a balanced tree holding the elements of `source`, each with a
    /// fresh identity (implicit slots: see `slotBase`).
    ///
    /// Reads `source` once, straight into full leaves; the last two leaves
    /// share what remains when it is below the minimum.
    ///
    /// - Complexity: O(n); allocates about n/16 nodes (n/64 for plain
    ///   elements) and their branches.
    @inlinable @inline(__always)
    static func build<S: Sequence>(_ source: S, stamp: VersionStamp) -> _ListNode where S.Element == Element {
        // NB: only this filling loop is forced inline, so that it runs in
        // the caller with `source` (say a lazy map and its closure) fully
        // known; the rest is shared.
        var leaves = ContiguousArray<_ListNode>()
        leaves.reserveCapacity(source.underestimatedCount / leafCapacity + 1)
        var iterator = source.makeIterator()
        var exhausted = false
        while !exhausted {
            let leaf = _make(height: 0, capacity: _fullLeafCapacity, explicitSlots: false, stamp: stamp)
            var target = leaf._elementsPointer
            var filled = 0
            while filled < leafCapacity {
                guard let element = iterator.next() else {
                    exhausted = true
                    break
                }
                target.initialize(to: element)
                target += 1
                filled += 1
            }
            leaf._setWidth(filled)
            leaf.count = filled
            if filled == 0 { break }
            leaves.append(leaf)
        }
        return build(leaves: leaves, stamp: stamp)
    }

    /// Builds a tree over leaves of implicit slots filled in order (all but
    /// the last full), numbering their slots.
    @inlinable
    static func build(leaves: ContiguousArray<_ListNode>, stamp: VersionStamp) -> _ListNode {
        guard let last = leaves.last else {
            return leaf(EmptyCollection(), slotBase: _reserveStamps(0), stamp: stamp)
        }
        if leaves.count == 1 {
            // A root leaf holds exactly its elements (a short list stays
            // small); its filling buffer is dropped.
            let root = last._relocated(stamp: stamp, capacity: last.width, explicitSlots: false, moving: true)
            root._header.pointee.slotBase = _reserveStamps(root.width)
            return root
        }
        if last.width < leafMinimum {
            // The last two share what remains.
            let previous = leaves[leaves.count - 2]
            let n = (previous.width + last.width) / 2 - last.width
            previous._moveSuffixImplicit(n, prependingTo: last)
        }
        var total = 0
        for leaf in leaves { total += leaf.width }
        var base = _reserveStamps(total)
        for leaf in leaves {
            leaf._header.pointee.slotBase = base
            base &+= UInt64(leaf.width)
        }
        return buildBranches(leaves, stamp: stamp)
    }

    /// Builds the branch levels above `level` (at least two nodes of equal
    /// height, each within its fill bounds) and returns the root.
    @inlinable
    static func buildBranches(_ level: ContiguousArray<_ListNode>, stamp: VersionStamp) -> _ListNode {
        var level = level
        var height = level[0].height + 1
        while level.count > 1 {
            let groups = chunkBounds(count: level.count, capacity: branchCapacity, minimum: branchMinimum)
            var next = ContiguousArray<_ListNode>()
            next.reserveCapacity(groups.count)
            for range in groups {
                next.append(_ListNode.branch(level[range], height: height, stamp: stamp))
            }
            level = next
            height += 1
        }
        return level[0]
    }

    /// Builds a balanced tree holding `elements` with the given slots.
    ///
    /// Leaves are filled to capacity except the last two, which share what
    /// remains so that both hold at least the minimum; branches likewise.
    ///
    /// - Complexity: O(n).
    @inlinable
    static func build(
        _ elements: ContiguousArray<Element>, slots: ContiguousArray<_ListSlot>, stamp: VersionStamp
    ) -> _ListNode {
        precondition(elements.count == slots.count)
        let n = elements.count
        if n <= leafCapacity {
            return leaf(elements, slots: slots, stamp: stamp)
        }
        let bounds = chunkBounds(count: n, capacity: leafCapacity, minimum: leafMinimum)
        var level = ContiguousArray<_ListNode>()
        level.reserveCapacity(bounds.count)
        for range in bounds {
            level.append(leaf(elements[range], slots: slots[range], capacity: _fullLeafCapacity, stamp: stamp))
        }
        return buildBranches(level, stamp: stamp)
    }

    /// Splits `0 ..< count` into full chunks of `capacity`, the last two
    /// sharing the remainder when it is below `minimum`.
    @inlinable
    static func chunkBounds(count: Int, capacity: Int, minimum: Int) -> [Range<Int>] {
        var bounds: [Range<Int>] = []
        bounds.reserveCapacity((count + capacity - 1) / capacity)
        var start = 0
        while start < count {
            let end = Swift.min(start + capacity, count)
            bounds.append(start ..< end)
            start = end
        }
        if bounds.count > 1, bounds[bounds.count - 1].count < minimum {
            let lower = bounds[bounds.count - 2].lowerBound
            let upper = bounds[bounds.count - 1].upperBound
            let mid = lower + (upper - lower) / 2
            bounds[bounds.count - 2] = lower ..< mid
            bounds[bounds.count - 1] = mid ..< upper
        }
        return bounds
    }

    /// All elements and slots, in order.
    ///
    /// - Complexity: O(n).
    @inlinable
    func flattened() -> (elements: ContiguousArray<Element>, slots: ContiguousArray<_ListSlot>) {
        var elements = ContiguousArray<Element>()
        var slots = ContiguousArray<_ListSlot>()
        elements.reserveCapacity(count)
        slots.reserveCapacity(count)
        forEachLeaf { leaf in
            elements.append(contentsOf: leaf.elements)
            leaf.withSlots { slots.append(contentsOf: $0) }
        }
        return (elements, slots)
    }
}

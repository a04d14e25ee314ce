// Bulk construction of a list tree from contiguous elements.

extension _ListNode {
    /// Builds a balanced tree holding `elements`, each with a fresh identity.
    ///
    /// - Complexity: O(n); allocates about 3n/64 leaf buffers and objects.
    @inlinable
    static func build(_ elements: ContiguousArray<Element>, stamp: VersionStamp) -> _ListNode {
        let n = elements.count
        let base = _reserveStamps(n)
        let slots = ContiguousArray<_ListSlot>(unsafeUninitializedCapacity: n) { buffer, initialized in
            for i in 0 ..< n { (buffer.baseAddress! + i).initialize(to: _ListSlot(fresh: base &+ UInt64(i))) }
            initialized = n
        }
        return build(elements, slots: slots, stamp: stamp)
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
            return _ListNode(leaf: elements, slots: slots, stamp: stamp)
        }
        let bounds = chunkBounds(count: n, capacity: leafCapacity, minimum: leafMinimum)
        // NB: all element buffers first, then all slot buffers, then the
        // nodes: consecutive allocations of one size tend to be adjacent, so
        // the leaves' elements end up in address order and iteration streams
        // through them (interleaving the three made iteration several times
        // slower, bound by memory latency at each leaf).
        var elementChunks = ContiguousArray<ContiguousArray<Element>>()
        elementChunks.reserveCapacity(bounds.count)
        for range in bounds { elementChunks.append(ContiguousArray(elements[range])) }
        var slotChunks = ContiguousArray<ContiguousArray<_ListSlot>>()
        slotChunks.reserveCapacity(bounds.count)
        for range in bounds { slotChunks.append(ContiguousArray(slots[range])) }
        var level = ContiguousArray<_ListNode>()
        level.reserveCapacity(bounds.count)
        for i in bounds.indices {
            level.append(_ListNode(leaf: elementChunks[i], slots: slotChunks[i], stamp: stamp))
        }
        var height = 1
        while level.count > 1 {
            let groups = chunkBounds(count: level.count, capacity: branchCapacity, minimum: branchMinimum)
            var next = ContiguousArray<_ListNode>()
            next.reserveCapacity(groups.count)
            for range in groups {
                next.append(_ListNode(branch: ContiguousArray(level[range]), height: height, stamp: stamp))
            }
            level = next
            height += 1
        }
        return level[0]
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
            slots.append(contentsOf: leaf.slots)
        }
        return (elements, slots)
    }
}

// Bulk construction of a list tree from contiguous elements.

extension _ListNode {
    /// Builds a balanced tree holding the elements of `source`, each with a
    /// fresh identity (implicit slots: see `slotBase`).
    ///
    /// Reads `source` once, straight into leaf buffers of full capacity;
    /// the last two leaves share what remains when it is below the minimum.
    ///
    /// - Complexity: O(n); allocates about 2n/64 objects and buffers.
    @inlinable @inline(__always)
    static func build<S: Sequence>(_ source: S, stamp: VersionStamp) -> _ListNode where S.Element == Element {
        // NB: only this filling loop is forced inline, so that it runs in
        // the caller with `source` (say a lazy map and its closure) fully
        // known; the rest is shared.
        var chunks = ContiguousArray<ContiguousArray<Element>>()
        chunks.reserveCapacity(source.underestimatedCount / leafCapacity + 1)
        var iterator = source.makeIterator()
        var total = 0
        var exhausted = false
        while !exhausted {
            let chunk = ContiguousArray<Element>(unsafeUninitializedCapacity: leafCapacity) { buffer, initialized in
                var target = buffer.baseAddress.unsafelyUnwrapped
                while initialized < leafCapacity {
                    guard let element = iterator.next() else {
                        exhausted = true
                        return
                    }
                    target.initialize(to: element)
                    target += 1
                    initialized += 1
                }
            }
            if chunk.isEmpty { break }
            total += chunk.count
            chunks.append(chunk)
        }
        return build(chunks: chunks, total: total, stamp: stamp)
    }

    /// Builds a tree over full leaf buffers (all but the last of
    /// `leafCapacity` elements), with implicit slots.
    @inlinable
    static func build(
        chunks: ContiguousArray<ContiguousArray<Element>>, total: Int, stamp: VersionStamp
    ) -> _ListNode {
        var chunks = chunks
        if chunks.count >= 2, chunks[chunks.count - 1].count < leafMinimum {
            let last = chunks.removeLast()
            let previous = chunks.removeLast()
            let merged = previous + last
            let mid = merged.count / 2
            chunks.append(ContiguousArray(merged[..<mid]))
            chunks.append(ContiguousArray(merged[mid...]))
        }
        var base = _reserveStamps(total)
        if chunks.count <= 1 {
            return _ListNode(leaf: chunks.first ?? [], slotBase: base, stamp: stamp)
        }
        var level = ContiguousArray<_ListNode>()
        level.reserveCapacity(chunks.count)
        for chunk in chunks {
            level.append(_ListNode(leaf: chunk, slotBase: base, stamp: stamp))
            base &+= UInt64(chunk.count)
        }
        return buildBranches(level, stamp: stamp)
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
                next.append(_ListNode(branch: ContiguousArray(level[range]), height: height, stamp: stamp))
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

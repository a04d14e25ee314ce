// The id index built at once: from entries by position, or from a leaf
// that a write left over capacity.

extension _IdentityIndex {
    // MARK: Building

    /// The node holding `entries` (more than fit one leaf, or not) at
    /// `shift`: a leaf when they fit or the path's bits are used up, else a
    /// branch partitioning them by the next bits.
    @inlinable
    static func _split(_ entries: ContiguousArray<UInt64>, shift: Int) -> _IdentityNode {
        if entries.count <= leafCapacity || shift > lastBranchShift {
            return _IdentityLeaf(entries: entries)
        }
        var buckets = [ContiguousArray<UInt64>](repeating: [], count: 32)
        let s = UInt32(truncatingIfNeeded: shift)
        for entry in entries {
            buckets[Int((fragment(ofEntry: entry) &>> s) & 31)].append(entry)
        }
        let branch = _IdentityBranch(bitmap: 0, children: [])
        for k in 0 ..< 32 where !buckets[k].isEmpty {
            branch.bitmap |= 1 &<< UInt32(k)
            branch.children.append(_split(buckets[k], shift: shift &+ bitsPerLevel))
        }
        return branch
    }

    /// An index of `count` entries, `entry(k)` for `k` in `0 ..< count`,
    /// built at once: partitioned by fragment level by level (no insertion
    /// per entry), each leaf allocated at its size. Returns nil, with
    /// `duplicate` set to one of the two positions, when `sameID` holds for
    /// two positions whose entries share a fragment.
    ///
    /// - Complexity: O(n) expected: each entry is moved once per level
    ///   (O(log₃₂ n) levels, a small constant), plus a pass over each
    ///   leaf's fragments to find equal ones; two buffers of n entries and
    ///   positions meanwhile.
    @inlinable
    static func build(
        count: Int, duplicate: inout Int?, sameID: (Int, Int) -> Bool, entry: (Int) -> UInt64
    ) -> _IdentityIndex? {
        var index = _IdentityIndex()
        guard count > 0 else { return index }
        var builder = _IdentityIndexBuilder(count: count, entry: entry)
        let root = builder.node(0, count, shift: 0, source: builder.first, other: builder.second, sameID: sameID)
        builder.deallocate()
        if let found = builder.duplicate {
            duplicate = found
            return nil
        }
        index._root = root
        index._count = count
        return index
    }
}

/// The bulk build's state: the entries with their positions, in two
/// buffers that the levels' partitions move them between, each level's
/// output the next level's input.
///
/// NB: the entry (fragment and label) travels whole: a partition reads its
/// input in order and writes 32 runs in order, where reading fragments
/// through an order array cost a cache miss per entry and level.
@usableFromInline
internal struct _IdentityIndexBuilder {
    @usableFromInline
    struct Item {
        @usableFromInline var entry: UInt64
        @usableFromInline var position: Int
        @inlinable init(entry: UInt64, position: Int) {
            self.entry = entry
            self.position = position
        }
    }

    @usableFromInline let first: UnsafeMutablePointer<Item>
    @usableFromInline let second: UnsafeMutablePointer<Item>
    @usableFromInline var duplicate: Int?

    /// NB: entries by position through a closure, not a sequence: an
    /// unspecialized caller (a `Decodable` conformance) iterating a
    /// collection's wrappers paid a heap-allocated coroutine frame per
    /// subscript, seven mallocs per element.
    @inlinable
    init(count: Int, entry: (Int) -> UInt64) {
        first = .allocate(capacity: count)
        second = .allocate(capacity: count)
        for k in 0 ..< count {
            (first + k).initialize(to: Item(entry: entry(k), position: k))
        }
        duplicate = nil
    }

    /// Frees the buffers (the items are trivial).
    @inlinable
    func deallocate() {
        first.deallocate()
        second.deallocate()
    }

    @inlinable @inline(__always)
    static func fragment(_ item: Item) -> UInt32 { _IdentityIndex.fragment(ofEntry: item.entry) }

    /// The node of the items `source[lo ..< hi]` at `shift` (`other[lo ..<
    /// hi]` is free, and used for the partition).
    @inlinable
    mutating func node(
        _ lo: Int, _ hi: Int, shift: Int, source: UnsafeMutablePointer<Item>, other: UnsafeMutablePointer<Item>,
        sameID: (Int, Int) -> Bool
    ) -> _IdentityNode {
        if hi &- lo <= _IdentityIndex.leafCapacity || shift > _IdentityIndex.lastBranchShift {
            return leaf(lo, hi, source, shift: shift, sameID: sameID)
        }
        // NB: a counting sort of the range by the 5 bits at `shift`, from
        // `source` into `other`.
        var counts = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var ends = [Int](repeating: 0, count: 32)
        withUnsafeMutableBytes(of: &counts) { raw in
            let counts = raw.bindMemory(to: Int.self)
            let s = UInt32(truncatingIfNeeded: shift)
            for k in lo ..< hi { counts[Int((Self.fragment(source[k]) &>> s) & 31) &+ 1] &+= 1 }
            for b in 0 ..< 32 { counts[b &+ 1] &+= counts[b] }
            for k in lo ..< hi {
                let b = Int((Self.fragment(source[k]) &>> s) & 31)
                other[lo &+ counts[b]] = source[k]
                counts[b] &+= 1
            }
            for b in 0 ..< 32 { ends[b] = lo &+ counts[b] }
        }
        let branch = _IdentityBranch(bitmap: 0, children: [])
        var start = lo
        for b in 0 ..< 32 {
            let end = ends[b]
            if end > start {
                branch.bitmap |= 1 &<< UInt32(b)
                branch.children.append(
                    node(start, end, shift: shift &+ _IdentityIndex.bitsPerLevel, source: other, other: source,
                         sameID: sameID))
            }
            start = end
        }
        return branch
    }

    /// A leaf of the items `source[lo ..< hi]` (which share the fragment
    /// bits below `shift`), after a check for duplicate ids: equal ids have
    /// equal fragments.
    @inlinable
    mutating func leaf(
        _ lo: Int, _ hi: Int, _ source: UnsafeMutablePointer<Item>, shift: Int, sameID: (Int, Int) -> Bool
    ) -> _IdentityLeaf {
        if hi &- lo > 1 && duplicate == nil {
            if hi &- lo <= Int(Int8.max) && shift <= 32 &- Self.slotBits {
                _checkDuplicatesBySlot(lo, hi, source, shift: shift, sameID: sameID)
            } else {
                _checkDuplicatesPairwise(lo, hi, source, sameID: sameID)
            }
        }
        let n = hi &- lo
        let entries = ContiguousArray<UInt64>(unsafeUninitializedCapacity: n) { buffer, initialized in
            for k in 0 ..< n { (buffer.baseAddress.unsafelyUnwrapped + k).initialize(to: source[lo &+ k].entry) }
            initialized = n
        }
        return _IdentityLeaf(entries: entries)
    }

    /// The fragment bits that pick a slot in ``_checkDuplicatesBySlot``.
    @inlinable static var slotBits: Int { 7 }

    /// Finds a duplicate among the items `source[lo ..< hi]` (at most 127)
    /// through a chained table of 128 slots on the 7 fragment bits from
    /// `shift` (bits the items do not share): each item is compared with
    /// the earlier items of its slot only, and its id only when their
    /// fragments are equal.
    ///
    /// NB: comparing every pair (``_checkDuplicatesPairwise``) cost about
    /// n²/2 comparisons per leaf, 465 for the 31 items a leaf of a
    /// 1,000,000-item build holds on average: a tenth of the build.
    ///
    /// - Complexity: O(n) expected.
    @inlinable
    mutating func _checkDuplicatesBySlot(
        _ lo: Int, _ hi: Int, _ source: UnsafeMutablePointer<Item>, shift: Int, sameID: (Int, Int) -> Bool
    ) {
        let n = hi &- lo
        let mask = UInt32(1 &<< Self.slotBits) &- 1
        let s = UInt32(truncatingIfNeeded: shift)
        duplicate = withUnsafeTemporaryAllocation(of: Int8.self, capacity: (1 &<< Self.slotBits) &+ n) { buffer in
            let heads = buffer.baseAddress.unsafelyUnwrapped
            let next = heads + (1 &<< Self.slotBits)
            heads.initialize(repeating: -1, count: 1 &<< Self.slotBits)
            for k in 0 ..< n {
                let item = source[lo &+ k]
                let fragment = Self.fragment(item)
                let slot = Int((fragment &>> s) & mask)
                var j = Int(heads[slot])
                while j >= 0 {
                    let other = source[lo &+ j]
                    if Self.fragment(other) == fragment && sameID(other.position, item.position) { return item.position }
                    j = Int(next[j])
                }
                next[k] = heads[slot]
                heads[slot] = Int8(truncatingIfNeeded: k)
            }
            return nil
        }
    }

    /// Finds a duplicate among the items `source[lo ..< hi]` by comparing
    /// the ids of every pair with equal fragments: for a leaf past the last
    /// branch level (path bits used up) or of more than 127 items.
    ///
    /// - Complexity: O(n²).
    @inlinable
    mutating func _checkDuplicatesPairwise(
        _ lo: Int, _ hi: Int, _ source: UnsafeMutablePointer<Item>, sameID: (Int, Int) -> Bool
    ) {
        for k in lo &+ 1 ..< hi {
            let fragment = Self.fragment(source[k])
            for j in lo ..< k where Self.fragment(source[j]) == fragment && sameID(source[j].position, source[k].position) {
                duplicate = source[k].position
                return
            }
        }
    }
}

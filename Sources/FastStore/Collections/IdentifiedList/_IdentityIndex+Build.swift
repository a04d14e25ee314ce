// The id index built at once: from entries by position, or from a full
// leaf that an insertion splits.

extension _IdentityIndex {
    // MARK: Building

    /// The node holding `entries` (more than fit one leaf, or not) at
    /// `shift`: a leaf when they fit or the hashes are used up, else a
    /// branch partitioning them by the next bits.
    @inlinable
    static func _split(_ entries: ContiguousArray<_IdentityEntry<ID>>, shift: Int) -> _IdentityNode<ID> {
        if entries.count <= leafCapacity || shift > lastBranchShift {
            return _IdentityLeaf(entries: entries)
        }
        var buckets = [ContiguousArray<_IdentityEntry<ID>>](repeating: [], count: 32)
        for entry in entries {
            buckets[Int((hash(entry.id) &>> UInt64(shift)) & 31)].append(entry)
        }
        let branch = _IdentityBranch<ID>(bitmap: 0, children: [])
        for k in 0 ..< 32 where !buckets[k].isEmpty {
            branch.bitmap |= 1 &<< UInt32(k)
            branch.children.append(_split(buckets[k], shift: shift &+ bitsPerLevel))
        }
        return branch
    }

    /// An index of `count` entries, `entry(k)` for `k` in `0 ..< count`,
    /// built at once: partitioned by hash level by level (no insertion per
    /// entry), each leaf allocated at its size. Returns nil, with
    /// `duplicate` set, when two entries have the same id.
    ///
    /// - Complexity: O(n) expected: each entry is moved once per level
    ///   (O(log₃₂ n) levels, a small constant), plus a sort of each leaf's
    ///   few hashes to find duplicates; two buffers of n entries and hashes
    ///   meanwhile.
    @inlinable
    static func build(count: Int, duplicate: inout ID?, entry: (Int) -> _IdentityEntry<ID>) -> _IdentityIndex? {
        var index = _IdentityIndex()
        guard count > 0 else { return index }
        var builder = _IdentityIndexBuilder<ID>(count: count, entry: entry)
        let root = builder.node(0, count, shift: 0, source: builder.first, other: builder.second)
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

/// The bulk build's state: the entries with their hashes, in two buffers
/// that the levels' partitions move them between, each level's output the
/// next level's input; a leaf moves its entries out, so both buffers end
/// empty.
///
/// NB: the hash travels with its entry: a partition reads its input in
/// order and writes 32 runs in order, where reading hashes through an
/// order array cost a cache miss per entry and level.
@usableFromInline
internal struct _IdentityIndexBuilder<ID: Hashable> {
    @usableFromInline
    struct Item {
        @usableFromInline var hash: UInt64
        @usableFromInline var entry: _IdentityEntry<ID>
        @inlinable init(hash: UInt64, entry: _IdentityEntry<ID>) {
            self.hash = hash
            self.entry = entry
        }
    }

    @usableFromInline let first: UnsafeMutablePointer<Item>
    @usableFromInline let second: UnsafeMutablePointer<Item>
    @usableFromInline var duplicate: ID?

    /// NB: entries by position through a closure, not a sequence: an
    /// unspecialized caller (a `Decodable` conformance) iterating a
    /// collection's wrappers paid a heap-allocated coroutine frame per
    /// subscript, seven mallocs per element.
    @inlinable
    init(count: Int, entry: (Int) -> _IdentityEntry<ID>) {
        first = .allocate(capacity: count)
        second = .allocate(capacity: count)
        for k in 0 ..< count {
            let e = entry(k)
            (first + k).initialize(to: Item(hash: _IdentityIndex<ID>.hash(e.id), entry: e))
        }
        duplicate = nil
    }

    /// Frees the buffers, which the leaves emptied.
    @inlinable
    func deallocate() {
        first.deallocate()
        second.deallocate()
    }

    /// The node of the items `source[lo ..< hi]` at `shift`; moves them out
    /// (`other[lo ..< hi]` is free, and used for the partition).
    @inlinable
    mutating func node(
        _ lo: Int, _ hi: Int, shift: Int, source: UnsafeMutablePointer<Item>, other: UnsafeMutablePointer<Item>
    ) -> _IdentityNode<ID> {
        if hi &- lo <= _IdentityIndex<ID>.leafCapacity || shift > _IdentityIndex<ID>.lastBranchShift {
            return leaf(lo, hi, source, shift: shift)
        }
        // NB: a counting sort of the range by the 5 bits at `shift`, from
        // `source` into `other`.
        var counts = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var ends = [Int](repeating: 0, count: 32)
        withUnsafeMutableBytes(of: &counts) { raw in
            let counts = raw.bindMemory(to: Int.self)
            let s = UInt64(shift)
            for k in lo ..< hi { counts[Int((source[k].hash &>> s) & 31) &+ 1] &+= 1 }
            for b in 0 ..< 32 { counts[b &+ 1] &+= counts[b] }
            for k in lo ..< hi {
                let b = Int((source[k].hash &>> s) & 31)
                (other + (lo &+ counts[b])).moveInitialize(from: source + k, count: 1)
                counts[b] &+= 1
            }
            for b in 0 ..< 32 { ends[b] = lo &+ counts[b] }
        }
        let branch = _IdentityBranch<ID>(bitmap: 0, children: [])
        var start = lo
        for b in 0 ..< 32 {
            let end = ends[b]
            if end > start {
                branch.bitmap |= 1 &<< UInt32(b)
                branch.children.append(
                    node(start, end, shift: shift &+ _IdentityIndex<ID>.bitsPerLevel, source: other, other: source))
            }
            start = end
        }
        return branch
    }

    /// A leaf of the items `source[lo ..< hi]` (which share the hash bits
    /// below `shift`), moved out, after a check for duplicate ids: equal
    /// ids have equal hashes.
    @inlinable
    mutating func leaf(_ lo: Int, _ hi: Int, _ source: UnsafeMutablePointer<Item>, shift: Int) -> _IdentityLeaf<ID> {
        if hi &- lo > 1 {
            if hi &- lo <= Int(Int8.max) && shift <= 64 &- Self.slotBits {
                _checkDuplicatesBySlot(lo, hi, source, shift: shift)
            } else {
                _checkDuplicatesPairwise(lo, hi, source)
            }
        }
        let n = hi &- lo
        let entries = ContiguousArray<_IdentityEntry<ID>>(unsafeUninitializedCapacity: n) { buffer, initialized in
            for k in 0 ..< n { (buffer.baseAddress.unsafelyUnwrapped + k).initialize(to: (source + (lo &+ k)).move().entry) }
            initialized = n
        }
        return _IdentityLeaf(entries: entries)
    }

    /// The hash bits that pick a slot in ``_checkDuplicatesBySlot``.
    @inlinable static var slotBits: Int { 7 }

    /// Finds a duplicate among the items `source[lo ..< hi]` (at most 127)
    /// through a chained table of 128 slots on the 7 hash bits from
    /// `shift` (bits the items do not share): each item is compared with
    /// the earlier items of its slot only.
    ///
    /// NB: comparing every pair (``_checkDuplicatesPairwise``) cost about
    /// n²/2 hash comparisons per leaf, 465 for the 31 items a leaf of a
    /// 1,000,000-item build holds on average: a tenth of the build.
    ///
    /// - Complexity: O(n) expected.
    @inlinable
    mutating func _checkDuplicatesBySlot(_ lo: Int, _ hi: Int, _ source: UnsafeMutablePointer<Item>, shift: Int) {
        let n = hi &- lo
        let mask = UInt64(1 &<< Self.slotBits) &- 1
        let s = UInt64(shift)
        let found: ID? = withUnsafeTemporaryAllocation(of: Int8.self, capacity: (1 &<< Self.slotBits) &+ n) { buffer in
            let heads = buffer.baseAddress.unsafelyUnwrapped
            let next = heads + (1 &<< Self.slotBits)
            heads.initialize(repeating: -1, count: 1 &<< Self.slotBits)
            var found: ID? = nil
            for k in 0 ..< n {
                let item = source + (lo &+ k)
                let hash = item.pointee.hash
                let slot = Int((hash &>> s) & mask)
                var j = Int(heads[slot])
                while j >= 0 {
                    let other = source + (lo &+ j)
                    if found == nil && other.pointee.hash == hash && other.pointee.entry.id == item.pointee.entry.id {
                        found = item.pointee.entry.id
                    }
                    j = Int(next[j])
                }
                next[k] = heads[slot]
                heads[slot] = Int8(truncatingIfNeeded: k)
            }
            return found
        }
        if duplicate == nil, let found { duplicate = found }
    }

    /// Finds a duplicate among the items `source[lo ..< hi]` by comparing
    /// the ids of every pair with equal hashes: for a leaf past the last
    /// branch level (hashes used up) or of more than 127 items.
    ///
    /// - Complexity: O(n²).
    @inlinable
    mutating func _checkDuplicatesPairwise(_ lo: Int, _ hi: Int, _ source: UnsafeMutablePointer<Item>) {
        for k in lo &+ 1 ..< hi {
            let hash = source[k].hash
            for j in lo ..< k where source[j].hash == hash && source[j].entry.id == source[k].entry.id {
                if duplicate == nil { duplicate = source[k].entry.id }
            }
        }
    }
}

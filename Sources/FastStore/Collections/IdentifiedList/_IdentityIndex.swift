/// The id index of an ``IdentifiedList``: for each element, an 8-byte
/// entry of a 32-bit fragment of its id's hash and the label of the leaf
/// holding it (with the element's offset in that leaf as a hint). The list
/// finds an id by trying the leaves filed under its fragment, comparing
/// ids there; two ids may share a fragment, so the index is a multiset of
/// entries, not a map, and never compares ids itself.
///
/// A persistent hash trie with buckets for leaves. A branch consumes 5 bits
/// of the fragment (bits 0 to 29: six levels) and holds its non-empty
/// children packed by a bitmap; a leaf holds up to ``leafCapacity``
/// entries whose fragments share the leaf's path, unordered, and is split
/// into a branch when a write leaves it over capacity (below the last
/// level, where the path's bits are used up, a leaf grows instead).
/// Removals merge a branch of few entries back into one leaf. Shared nodes
/// are copied on write, unique ones written in place.
///
/// It has no stamps: the list is the versioned part (every write of the
/// index writes the list too), and no canonical shape: nothing compares
/// two indexes.
///
/// NB: `@exclusivity(unchecked)` on the node fields for the reason given on
/// `_ListNode`: a node is written only through a path made unique.
@usableFromInline
internal struct _IdentityIndex {
    @usableFromInline var _root: _IdentityNode?
    @usableFromInline var _count: Int

    /// An empty index.
    @inlinable init() {
        _root = nil
        _count = 0
    }

    /// The entries a leaf holds before a write splits it.
    @inlinable static var leafCapacity: Int { 64 }
    /// A removal merges a branch of leaves holding this many entries or
    /// fewer into one leaf.
    @inlinable static var mergeThreshold: Int { 32 }
    @inlinable static var bitsPerLevel: Int { 5 }
    /// The deepest shift a branch may have (the fragment's path bits are
    /// used up after it).
    @inlinable static var lastBranchShift: Int { 25 }

    // MARK: Entries

    /// The low bits of a label: the element's offset in its leaf when
    /// filed, a hint (labels of leaves are multiples of 64).
    @inlinable static var hintMask: UInt64 { 63 }
    /// Labels are below this (they fill an entry's low 32 bits).
    @inlinable static var labelLimit: UInt64 { 1 &<< 32 }

    /// The fragment of `id`'s hash that the index files it under.
    @inlinable @inline(__always)
    static func fragment<ID: Hashable>(of id: ID) -> UInt32 { UInt32(truncatingIfNeeded: id.hashValue) }

    /// The entry of `fragment` and `label` (below ``labelLimit``).
    @inlinable @inline(__always)
    static func entry(_ fragment: UInt32, _ label: UInt64) -> UInt64 { UInt64(fragment) &<< 32 | label }

    @inlinable @inline(__always)
    static func fragment(ofEntry entry: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: entry &>> 32) }

    /// The label with its hint.
    @inlinable @inline(__always)
    static func label(ofEntry entry: UInt64) -> UInt64 { entry & (labelLimit &- 1) }

    /// The leaf's label, without the hint.
    @inlinable @inline(__always)
    static func leafLabel(ofEntry entry: UInt64) -> UInt64 { entry & (labelLimit &- 1) & ~hintMask }

    @inlinable @inline(__always)
    static func bit(_ fragment: UInt32, _ shift: Int) -> UInt32 {
        1 &<< ((fragment &>> UInt32(truncatingIfNeeded: shift)) & 31)
    }

    @inlinable @inline(__always)
    static func index(_ map: UInt32, _ bit: UInt32) -> Int { (map & (bit &- 1)).nonzeroBitCount }

    /// The number of entries.
    @inlinable var count: Int { _count }

    // MARK: Lookup

    /// The first non-nil result of `found` on the labels (with their hints)
    /// filed under `fragment`, in no particular order.
    ///
    /// - Complexity: O(log₃₂ n) branches, then a scan of one leaf (at most
    ///   ``leafCapacity`` entries), plus the calls of `found`.
    @inlinable
    func first<R>(_ fragment: UInt32, _ found: (UInt64) throws -> R?) rethrows -> R? {
        guard let leaf = _leaf(fragment) else { return nil }
        // NB: `_root`, held by `self`, keeps the leaf alive.
        return try leaf._withUnsafeGuaranteedRef { leaf in
            try leaf.entries.withUnsafeBufferPointer { entries in
                for entry in entries where Self.fragment(ofEntry: entry) == fragment {
                    if let result = try found(Self.label(ofEntry: entry)) { return result }
                }
                return nil
            }
        }
    }

    /// Whether some entry under `fragment` has a leaf label for which
    /// `matches` holds.
    @inlinable
    func contains(_ fragment: UInt32, where matches: (UInt64) -> Bool) -> Bool {
        first(fragment) { matches($0 & ~Self.hintMask) ? true : nil } ?? false
    }

    /// The leaf on `fragment`'s path, unretained, if any.
    @inlinable
    func _leaf(_ fragment: UInt32) -> Unmanaged<_IdentityLeaf>? {
        guard let root = _root else { return nil }
        // NB: `root`, held by `self`, keeps every node of the walk alive:
        // they are read unretained.
        var node = Unmanaged.passUnretained(root)
        var shift = 0
        while !node._withUnsafeGuaranteedRef({ $0.isLeaf }) {
            let next: Unmanaged<_IdentityNode>? = node._withUnsafeGuaranteedRef { base in
                let branch = unsafeDowncast(base, to: _IdentityBranch.self)
                let bit = Self.bit(fragment, shift)
                guard branch.bitmap & bit != 0 else { return nil }
                return branch._unretainedChild(Self.index(branch.bitmap, bit))
            }
            guard let next else { return nil }
            node = next
            shift &+= Self.bitsPerLevel
        }
        return node._withUnsafeGuaranteedRef { Unmanaged.passUnretained(unsafeDowncast($0, to: _IdentityLeaf.self)) }
    }

    /// Calls `body` with every entry, in no particular order.
    ///
    /// - Complexity: O(n).
    @inlinable
    func forEach(_ body: (UInt64) throws -> Void) rethrows {
        if let root = _root { try root.forEachEntry(body) }
    }

    // MARK: Writes

    /// Adds `entry`.
    ///
    /// - Complexity: O(log n): one node per level copied when shared; a
    ///   leaf left over capacity is split (O(``leafCapacity``)).
    @inlinable
    mutating func insert(_ entry: UInt64) {
        _update(Self.fragment(ofEntry: entry), creating: true) { entries in
            entries.append(entry)
            return 1
        }
    }

    /// Removes one entry under `fragment` whose leaf label is `leafLabel`;
    /// returns whether there was one (nothing is copied when there is not).
    ///
    /// - Complexity: O(log n).
    @inlinable @discardableResult
    mutating func remove(_ fragment: UInt32, leafLabel: UInt64) -> Bool {
        guard contains(fragment, where: { $0 == leafLabel }) else { return false }
        _update(fragment, creating: false) { entries in
            guard let i = entries.firstIndex(where: {
                Self.fragment(ofEntry: $0) == fragment && Self.leafLabel(ofEntry: $0) == leafLabel
            }) else { return 0 }
            entries.remove(at: i)
            return -1
        }
        return true
    }

    /// Files `entry`'s fragment under its label, for an element that has at
    /// most one entry whose leaf label lies strictly between `lower` and
    /// `upper`, and the only one under its fragment there: that entry is
    /// relabelled when its leaf label differs (kept, hint and all, when it
    /// does not); without one, `entry` is added.
    ///
    /// - Complexity: O(log n); nothing is copied when nothing changes.
    @inlinable
    mutating func refile(_ entry: UInt64, between lower: UInt64, and upper: UInt64) {
        let fragment = Self.fragment(ofEntry: entry)
        let leafLabel = Self.leafLabel(ofEntry: entry)
        var filed: UInt64? = nil
        _ = first(fragment) { label -> Bool? in
            let leaf = label & ~Self.hintMask
            guard leaf > lower && leaf < upper else { return nil }
            filed = leaf
            return true
        }
        if filed == leafLabel { return }
        _update(fragment, creating: true) { entries in
            if let filed, let i = entries.firstIndex(where: {
                Self.fragment(ofEntry: $0) == fragment && Self.leafLabel(ofEntry: $0) == filed
            }) {
                entries[i] = entry
                return 0
            }
            entries.append(entry)
            return 1
        }
    }

    /// Removes every entry under `fragment` whose leaf label lies strictly
    /// between `lower` and `upper`; returns how many it removed.
    ///
    /// - Complexity: O(log n).
    @inlinable @discardableResult
    mutating func removeAll(_ fragment: UInt32, between lower: UInt64, and upper: UInt64) -> Int {
        let within = { (leaf: UInt64) in leaf > lower && leaf < upper }
        guard contains(fragment, where: within) else { return 0 }
        return -_update(fragment, creating: false) { entries in
            let before = entries.count
            entries.removeAll { Self.fragment(ofEntry: $0) == fragment && within(Self.leafLabel(ofEntry: $0)) }
            return entries.count &- before
        }
    }

    /// Runs `body` on the entries of the leaf on `fragment`'s path (made
    /// unique, created when absent and `creating`), then keeps the trie's
    /// shape: splits a leaf left over capacity, drops an empty one, merges
    /// a branch left with few entries. `body` returns the change in the
    /// number of entries, which this adds to the count and returns.
    @inlinable @discardableResult
    mutating func _update(_ fragment: UInt32, creating: Bool, _ body: (inout ContiguousArray<UInt64>) -> Int) -> Int {
        if _root == nil {
            guard creating else { return 0 }
            _root = _IdentityLeaf(entries: [])
        }
        let delta = Self._update(&_root!, fragment, shift: 0, creating: creating, body)
        _count &+= delta
        if _count == 0 { _root = nil }
        // NB: not checked here: a refile writes many entries, and the
        // list checks the index once after each of its writes.
        return delta
    }

    /// ``_update(_:creating:_:)`` below `node` at `shift`.
    @inlinable
    static func _update(
        _ node: inout _IdentityNode, _ fragment: UInt32, shift: Int, creating: Bool,
        _ body: (inout ContiguousArray<UInt64>) -> Int
    ) -> Int {
        if node.isLeaf {
            if !isKnownUniquelyReferenced(&node) {
                node = unsafeDowncast(node, to: _IdentityLeaf.self).copy(reserving: 1)
            }
            let leaf = unsafeDowncast(node, to: _IdentityLeaf.self)
            let delta = body(&leaf.entries)
            if leaf.entries.count > leafCapacity && shift <= lastBranchShift {
                node = _split(leaf.entries, shift: shift)
            }
            return delta
        }
        if !isKnownUniquelyReferenced(&node) {
            node = unsafeDowncast(node, to: _IdentityBranch.self).copy()
        }
        let branch = unsafeDowncast(node, to: _IdentityBranch.self)
        let bit = bit(fragment, shift)
        let j = index(branch.bitmap, bit)
        if branch.bitmap & bit == 0 {
            guard creating else { return 0 }
            branch.bitmap |= bit
            branch.children.insert(_IdentityLeaf(entries: []), at: j)
        }
        let delta = _update(&branch.children[j], fragment, shift: shift &+ bitsPerLevel, creating: creating, body)
        let child = branch.children[j]
        if child.isLeaf, unsafeDowncast(child, to: _IdentityLeaf.self).entries.isEmpty {
            branch.children.remove(at: j)
            branch.bitmap &= ~bit
        }
        if delta < 0, let merged = branch.mergedLeaf(atMost: mergeThreshold) { node = merged }
        return delta
    }
}

// NB: nodes are written only through a unique path.
extension _IdentityIndex: @unchecked Sendable {}

#if FASTSTORE_INTERNAL_CHECKS
extension _IdentityIndex {
    /// Checks the trie: every entry on its fragment's path, leaves
    /// non-empty and within capacity above the last level, bitmaps matching
    /// the children, no branch of leaves holding ``mergeThreshold`` entries
    /// or fewer (a removal merges it; nothing else makes one), the labels
    /// below ``labelLimit``, the entries counted.
    ///
    /// - Complexity: O(n).
    @usableFromInline
    func _invariantCheck() {
        guard let root = _root else {
            precondition(_count == 0, "_IdentityIndex: no root for \(_count) entries")
            return
        }
        func check(_ node: _IdentityNode, shift: Int, prefix: UInt32) -> Int {
            let mask: UInt32 = shift >= 32 ? .max : (1 &<< UInt32(shift)) &- 1
            if node.isLeaf {
                let leaf = unsafeDowncast(node, to: _IdentityLeaf.self)
                precondition(!leaf.entries.isEmpty, "_IdentityIndex: an empty leaf")
                precondition(leaf.entries.count <= Self.leafCapacity || shift > Self.lastBranchShift,
                             "_IdentityIndex: a leaf of \(leaf.entries.count) entries at shift \(shift)")
                for entry in leaf.entries {
                    precondition(Self.fragment(ofEntry: entry) & mask == prefix, "_IdentityIndex: entry \(entry) off its fragment's path")
                }
                return leaf.entries.count
            }
            let branch = unsafeDowncast(node, to: _IdentityBranch.self)
            precondition(shift <= Self.lastBranchShift, "_IdentityIndex: a branch at shift \(shift)")
            precondition(branch.bitmap.nonzeroBitCount == branch.children.count && !branch.children.isEmpty,
                         "_IdentityIndex: bitmap and children disagree")
            precondition(branch.mergedLeaf(atMost: Self.mergeThreshold) == nil,
                         "_IdentityIndex: a branch of \(Self.mergeThreshold) entries or fewer in leaves, not merged")
            var total = 0
            var k = 0
            for b in 0 ..< 32 where branch.bitmap & (1 << UInt32(b)) != 0 {
                total += check(branch.children[k], shift: shift + Self.bitsPerLevel, prefix: prefix | (UInt32(b) << UInt32(shift)))
                k += 1
            }
            return total
        }
        let counted = check(root, shift: 0, prefix: 0)
        precondition(counted == _count, "_IdentityIndex: count \(_count) != \(counted) entries")
    }
}
#endif

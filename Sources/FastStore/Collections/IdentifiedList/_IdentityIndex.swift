/// The id index of an ``IdentifiedList``: each id mapped to its element's
/// order label (the list finds the position from the label).
///
/// A persistent hash trie with buckets for leaves. A branch consumes 5 bits
/// of the id's hash (`hashValue`) and holds its non-empty children packed
/// by a bitmap; a leaf holds up to ``leafCapacity`` entries whose hashes
/// share the leaf's path, unordered, and is split into a branch when an
/// insertion finds it full (below the last level, where hashes are used
/// up, a leaf grows instead). Removals merge a branch of few entries back
/// into one leaf. Shared nodes are copied on write, unique ones written in
/// place.
///
/// What it keeps per id is the id and the label, in the leaves' arrays:
/// the nodes cost a few bytes per id amortized. It has no stamps: the list
/// is the versioned part (every write of the index writes the list too),
/// and no canonical shape: nothing compares two indexes.
///
/// NB: `@exclusivity(unchecked)` on the node fields for the reason given on
/// `_ListNode`: a node is written only through a path made unique.
@usableFromInline
internal struct _IdentityIndex<ID: Hashable> {
    @usableFromInline var _root: _IdentityNode<ID>?
    @usableFromInline var _count: Int

    /// An empty index.
    @inlinable init() {
        _root = nil
        _count = 0
    }

    /// The entries a leaf holds before an insertion splits it.
    @inlinable static var leafCapacity: Int { 64 }
    /// A removal merges a branch of leaves holding this many entries or
    /// fewer into one leaf.
    @inlinable static var mergeThreshold: Int { 32 }
    @inlinable static var bitsPerLevel: Int { 5 }
    /// The deepest shift a branch may have (the hash's bits are used up
    /// after it).
    @inlinable static var lastBranchShift: Int { 60 }

    @inlinable @inline(__always)
    static func hash(_ id: ID) -> UInt64 { UInt64(bitPattern: Int64(id.hashValue)) }

    @inlinable @inline(__always)
    static func bit(_ hash: UInt64, _ shift: Int) -> UInt32 {
        1 &<< UInt32(truncatingIfNeeded: (hash &>> UInt64(shift)) & 31)
    }

    @inlinable @inline(__always)
    static func index(_ map: UInt32, _ bit: UInt32) -> Int { (map & (bit &- 1)).nonzeroBitCount }

    /// The number of ids.
    @inlinable var count: Int { _count }

    // MARK: Lookup

    /// The label of `id`, if any.
    ///
    /// - Complexity: O(log₃₂ n) branches, then a scan of one leaf (at most
    ///   ``leafCapacity`` ids).
    @inlinable
    func label(for id: ID) -> UInt64? {
        guard let root = _root else { return nil }
        let hash = Self.hash(id)
        // NB: `root`, held here, keeps every node of the walk alive: they
        // are read unretained.
        return withExtendedLifetime(root) {
            var node = Unmanaged.passUnretained(root)
            var shift = 0
            while !node._withUnsafeGuaranteedRef({ $0.isLeaf }) {
                let next: Unmanaged<_IdentityNode<ID>>? = node._withUnsafeGuaranteedRef { base in
                    let branch = unsafeDowncast(base, to: _IdentityBranch<ID>.self)
                    let bit = Self.bit(hash, shift)
                    guard branch.bitmap & bit != 0 else { return nil }
                    return branch._unretainedChild(Self.index(branch.bitmap, bit))
                }
                guard let next else { return nil }
                node = next
                shift &+= Self.bitsPerLevel
            }
            return node._withUnsafeGuaranteedRef { base in
                let leaf = unsafeDowncast(base, to: _IdentityLeaf<ID>.self)
                return leaf.entries.withUnsafeBufferPointer { entries in
                    for entry in entries where entry.id == id { return entry.label }
                    return nil
                }
            }
        }
    }

    /// Calls `body` with every id and its label, in no particular order.
    ///
    /// - Complexity: O(n).
    @inlinable
    func forEach(_ body: (ID, UInt64) throws -> Void) rethrows {
        if let root = _root { try root.forEachEntry(body) }
    }

    // MARK: Writes

    /// Sets the label of `id`, inserting it when absent. Returns the label it
    /// had, or nil when it was inserted.
    ///
    /// - Complexity: O(log n): one node per level copied when shared; an
    ///   insertion into a full leaf splits it (O(``leafCapacity``) hashes).
    ///
    /// - Parameter check: Whether a debug build checks the whole index
    ///   afterwards (up to 8,192 ids); a caller writing many labels checks
    ///   once at its end.
    @inlinable @discardableResult
    mutating func setLabel(_ label: UInt64, for id: ID, check: Bool = true) -> UInt64? {
        guard _root != nil else {
            _root = _IdentityLeaf(entries: [_IdentityEntry(id: id, label: label)])
            _count = 1
            return nil
        }
        let old = Self.set(label, for: id, hash: Self.hash(id), in: &_root!, shift: 0)
        if old == nil { _count &+= 1 }
        if check { _checkAfterWrite() }
        return old
    }

    /// Removes `id`; returns its label, or nil (copying nothing) when it is
    /// absent.
    ///
    /// - Complexity: O(log n).
    @inlinable @discardableResult
    mutating func removeLabel(for id: ID) -> UInt64? {
        guard label(for: id) != nil else { return nil }
        let removed = Self.remove(id, hash: Self.hash(id), in: &_root!, shift: 0)
        _count &-= 1
        if _count == 0 { _root = nil }
        _checkAfterWrite()
        return removed
    }

    /// Below `node` at `shift`: sets the label of `id`. Copies `node` first
    /// when shared.
    @inlinable
    static func set(_ label: UInt64, for id: ID, hash: UInt64, in node: inout _IdentityNode<ID>, shift: Int) -> UInt64? {
        if node.isLeaf {
            let unique = isKnownUniquelyReferenced(&node)
            let leaf = unsafeDowncast(node, to: _IdentityLeaf<ID>.self)
            if let i = leaf.entries.firstIndex(where: { $0.id == id }) {
                let old = leaf.entries[i].label
                let target = unique ? leaf : leaf.copy(reserving: 0)
                target.entries[i].label = label
                node = target
                return old
            }
            let entry = _IdentityEntry(id: id, label: label)
            if leaf.entries.count < leafCapacity || shift > lastBranchShift {
                let target = unique ? leaf : leaf.copy(reserving: 1)
                target.entries.append(entry)
                node = target
                return nil
            }
            // NB: full: this leaf becomes a branch (or a chain of them when
            // the ids share more bits).
            var entries = ContiguousArray<_IdentityEntry<ID>>()
            entries.reserveCapacity(leaf.entries.count + 1)
            entries.append(contentsOf: leaf.entries)
            entries.append(entry)
            node = _split(entries, shift: shift)
            return nil
        }
        if !isKnownUniquelyReferenced(&node) {
            node = unsafeDowncast(node, to: _IdentityBranch<ID>.self).copy()
        }
        let branch = unsafeDowncast(node, to: _IdentityBranch<ID>.self)
        let bit = bit(hash, shift)
        let j = index(branch.bitmap, bit)
        if branch.bitmap & bit == 0 {
            branch.bitmap |= bit
            branch.children.insert(_IdentityLeaf(entries: [_IdentityEntry(id: id, label: label)]), at: j)
            return nil
        }
        return set(label, for: id, hash: hash, in: &branch.children[j], shift: shift &+ bitsPerLevel)
    }

    /// Below `node` at `shift`: removes `id`, which is there. Copies the
    /// path first where shared; leaves an empty leaf for the caller to drop.
    @inlinable
    static func remove(_ id: ID, hash: UInt64, in node: inout _IdentityNode<ID>, shift: Int) -> UInt64? {
        if node.isLeaf {
            let unique = isKnownUniquelyReferenced(&node)
            let leaf = unsafeDowncast(node, to: _IdentityLeaf<ID>.self)
            guard let i = leaf.entries.firstIndex(where: { $0.id == id }) else { return nil }
            let target = unique ? leaf : leaf.copy(reserving: 0)
            let removed = target.entries.remove(at: i).label
            node = target
            return removed
        }
        if !isKnownUniquelyReferenced(&node) {
            node = unsafeDowncast(node, to: _IdentityBranch<ID>.self).copy()
        }
        let branch = unsafeDowncast(node, to: _IdentityBranch<ID>.self)
        let bit = bit(hash, shift)
        guard branch.bitmap & bit != 0 else { return nil }
        let j = index(branch.bitmap, bit)
        let removed = remove(id, hash: hash, in: &branch.children[j], shift: shift &+ bitsPerLevel)
        let child = branch.children[j]
        if child.isLeaf, unsafeDowncast(child, to: _IdentityLeaf<ID>.self).entries.isEmpty {
            branch.children.remove(at: j)
            branch.bitmap &= ~bit
        }
        if let merged = branch.mergedLeaf(atMost: mergeThreshold) { node = merged }
        return removed
    }
}

extension _IdentityIndex: @unchecked Sendable where ID: Sendable {}

extension _IdentityIndex {
    /// Checks the whole index after a write in debug builds, up to 8,192 ids.
    @inlinable @inline(__always)
    func _checkAfterWrite() {
        #if FASTSTORE_INTERNAL_CHECKS
        if _count <= 8192 { _invariantCheck() }
        #endif
    }
}

#if FASTSTORE_INTERNAL_CHECKS
extension _IdentityIndex {
    /// Checks the trie: every entry on its hash's path, leaves non-empty and
    /// within capacity above the last level, bitmaps matching the children
    /// (at most 16 at the last branch level, where 4 hash bits remain), no
    /// branch of leaves holding ``mergeThreshold`` ids or fewer (a removal
    /// merges it; nothing else makes one), the ids unique and counted.
    ///
    /// - Complexity: O(n).
    @usableFromInline
    func _invariantCheck() {
        guard let root = _root else {
            precondition(_count == 0, "_IdentityIndex: no root for \(_count) ids")
            return
        }
        var seen = Set<ID>()
        func check(_ node: _IdentityNode<ID>, shift: Int, prefix: UInt64) -> Int {
            let mask: UInt64 = shift >= 64 ? .max : (1 &<< UInt64(shift)) &- 1
            if node.isLeaf {
                let leaf = unsafeDowncast(node, to: _IdentityLeaf<ID>.self)
                precondition(!leaf.entries.isEmpty || node === root, "_IdentityIndex: an empty leaf")
                precondition(leaf.entries.count <= Self.leafCapacity || shift > Self.lastBranchShift,
                             "_IdentityIndex: a leaf of \(leaf.entries.count) ids at shift \(shift)")
                for entry in leaf.entries {
                    precondition(Self.hash(entry.id) & mask == prefix, "_IdentityIndex: id \(entry.id) off its hash's path")
                    precondition(seen.insert(entry.id).inserted, "_IdentityIndex: duplicate id \(entry.id)")
                }
                return leaf.entries.count
            }
            let branch = unsafeDowncast(node, to: _IdentityBranch<ID>.self)
            precondition(shift <= Self.lastBranchShift, "_IdentityIndex: a branch at shift \(shift)")
            precondition(branch.bitmap.nonzeroBitCount == branch.children.count && !branch.children.isEmpty,
                         "_IdentityIndex: bitmap and children disagree")
            precondition(shift < Self.lastBranchShift || branch.bitmap >> 16 == 0,
                         "_IdentityIndex: a child past the hash's last 4 bits")
            precondition(branch.mergedLeaf(atMost: Self.mergeThreshold) == nil,
                         "_IdentityIndex: a branch of \(Self.mergeThreshold) ids or fewer in leaves, not merged")
            var total = 0
            var k = 0
            for b in 0 ..< 32 where branch.bitmap & (1 << UInt32(b)) != 0 {
                total += check(branch.children[k], shift: shift + Self.bitsPerLevel, prefix: prefix | (UInt64(b) << UInt64(shift)))
                k += 1
            }
            return total
        }
        let counted = check(root, shift: 0, prefix: 0)
        precondition(counted == _count, "_IdentityIndex: count \(_count) != \(counted) ids")
    }
}
#endif

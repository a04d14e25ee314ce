// Structural diff and comparison of two hash tries.
//
// The trie's shape is canonical (see `_MapNode`), so the same key is found
// at the same slot path in both versions, or one level further down in
// one of them when a slot holds an entry on one side and a child on the
// other. Subtrees that are the same node in both are skipped.

extension _MapNode {
    /// Appends to `removed`, `inserted` and `updated` the keys that differ
    /// between `a` (older) and `b` (newer), both at `shift`. An entry kept
    /// is updated when `isUpdated(old, new)`.
    /// The keys that differ between a slot holding `entry` on one side and
    /// `subtree` on the other (`entryIsOlder`: the entry is in the older
    /// version).
    @inlinable
    static func _difference(
        entry: _MapEntry<Key, Value>, subtree: _MapNode, entryIsOlder: Bool,
        isUpdated: (_MapEntry<Key, Value>, _MapEntry<Key, Value>) -> Bool,
        into changes: inout VersionedDictionaryChanges<Key>
    ) {
        var found = false
        subtree.forEachEntry { other in
            if other.key == entry.key {
                found = true
                let updated = entryIsOlder ? isUpdated(entry, other) : isUpdated(other, entry)
                if updated { changes.updated.append(entry.key) }
            } else if entryIsOlder {
                changes.inserted.append(other.key)
            } else {
                changes.removed.append(other.key)
            }
        }
        if !found {
            if entryIsOlder { changes.removed.append(entry.key) } else { changes.inserted.append(entry.key) }
        }
    }

    @inlinable
    static func difference(
        from a: _MapNode, to b: _MapNode, shift: Int,
        isUpdated: (_MapEntry<Key, Value>, _MapEntry<Key, Value>) -> Bool,
        into changes: inout VersionedDictionaryChanges<Key>
    ) {
        if a === b { return }
        if isCollision(shift) {
            for e in a.entries {
                if let f = b.entries.first(where: { $0.key == e.key }) {
                    if isUpdated(e, f) { changes.updated.append(e.key) }
                } else {
                    changes.removed.append(e.key)
                }
            }
            for f in b.entries where !a.entries.contains(where: { $0.key == f.key }) {
                changes.inserted.append(f.key)
            }
            return
        }
        var bits = a.dataMap | a.nodeMap | b.dataMap | b.nodeMap
        while bits != 0 {
            let bit = bits & (0 &- bits)
            bits &= bits &- 1
            // NB: the common cases first, without copying anything out: the
            // same child on both sides (shared subtree), or the same entry.
            if a.nodeMap & b.nodeMap & bit != 0,
               a.children[index(a.nodeMap, bit)] === b.children[index(b.nodeMap, bit)] {
                continue
            }
            if a.dataMap & b.dataMap & bit != 0 {
                let i = index(a.dataMap, bit), j = index(b.dataMap, bit)
                if a.entries[i].written == b.entries[j].written && a.entries[i].key == b.entries[j].key {
                    continue
                }
            }
            let ae = a.dataMap & bit != 0 ? a.entries[index(a.dataMap, bit)] : nil
            let be = b.dataMap & bit != 0 ? b.entries[index(b.dataMap, bit)] : nil
            let ac = a.nodeMap & bit != 0 ? a.children[index(a.nodeMap, bit)] : nil
            let bc = b.nodeMap & bit != 0 ? b.children[index(b.nodeMap, bit)] : nil
            if let ac, let bc {
                difference(from: ac, to: bc, shift: shift + bitsPerLevel, isUpdated: isUpdated, into: &changes)
            } else if let ae, let be {
                if ae.key == be.key {
                    if isUpdated(ae, be) { changes.updated.append(be.key) }
                } else {
                    changes.removed.append(ae.key)
                    changes.inserted.append(be.key)
                }
            } else if let ae, let bc {
                _difference(entry: ae, subtree: bc, entryIsOlder: true, isUpdated: isUpdated, into: &changes)
            } else if let ac, let be {
                _difference(entry: be, subtree: ac, entryIsOlder: false, isUpdated: isUpdated, into: &changes)
            } else if let ae {
                changes.removed.append(ae.key)
            } else if let be {
                changes.inserted.append(be.key)
            } else if let ac {
                ac.forEachEntry { changes.removed.append($0.key) }
            } else if let bc {
                bc.forEachEntry { changes.inserted.append($0.key) }
            }
        }
    }
}

extension _MapNode where Value: Equatable {
    /// Whether two tries at `shift` hold equal entries, skipping shared nodes.
    @inlinable
    static func entriesEqual(_ a: _MapNode, _ b: _MapNode, shift: Int) -> Bool {
        if a === b { return true }
        if isCollision(shift) {
            guard a.entries.count == b.entries.count else { return false }
            return a.entries.allSatisfy { e in b.entries.contains { $0.key == e.key && $0.value == e.value } }
        }
        guard a.dataMap == b.dataMap, a.nodeMap == b.nodeMap else { return false }
        for i in 0 ..< a.entries.count {
            guard a.entries[i].key == b.entries[i].key, a.entries[i].value == b.entries[i].value else { return false }
        }
        for i in 0 ..< a.children.count {
            guard entriesEqual(a.children[i], b.children[i], shift: shift + bitsPerLevel) else { return false }
        }
        return true
    }
}

#if FASTSTORE_INTERNAL_CHECKS
extension _MapNode {
    /// Checks the trie below this node (as a root at shift 0): packed storage
    /// matches the bitmaps, keys sit on their hash path, children are not
    /// foldable, stamps never decrease toward the root. Returns the count.
    ///
    /// - Complexity: O(n).
    @usableFromInline
    @discardableResult
    func _invariantCheck(shift: Int = 0, prefix: UInt64 = 0, isRoot: Bool = true) -> Int {
        if Self.isCollision(shift) {
            precondition(entries.count >= 2 || isRoot, "VersionedDictionary: collision node with \(entries.count) entries")
            precondition(children.isEmpty && dataMap == 0 && nodeMap == 0, "VersionedDictionary: collision node shape")
            for (i, e) in entries.enumerated() {
                precondition(Self.hash(e.key) == prefix, "VersionedDictionary: key off its hash path")
                precondition(!entries[(i + 1)...].contains { $0.key == e.key }, "VersionedDictionary: duplicate key")
            }
            return entries.count
        }
        precondition(dataMap & nodeMap == 0, "VersionedDictionary: slot holds both an entry and a child")
        precondition(entries.count == dataMap.nonzeroBitCount, "VersionedDictionary: entries do not match dataMap")
        precondition(children.count == nodeMap.nonzeroBitCount, "VersionedDictionary: children do not match nodeMap")
        if !isRoot {
            precondition(!(children.isEmpty && entries.count <= 1), "VersionedDictionary: foldable child")
        }
        let mask: UInt64 = shift == 0 ? 0 : (1 &<< UInt64(shift)) &- 1
        var total = 0
        for e in entries {
            let h = Self.hash(e.key)
            precondition(h & mask == prefix, "VersionedDictionary: key off its hash path")
            let bit = Self.bit(h, shift)
            precondition(dataMap & bit != 0 && entries[Self.index(dataMap, bit)].key == e.key,
                         "VersionedDictionary: entry in the wrong slot")
            total += 1
        }
        var bits = nodeMap
        var j = 0
        while bits != 0 {
            let bit = bits & (0 &- bits)
            bits &= bits &- 1
            let slot = UInt64(bit.trailingZeroBitCount)
            let child = children[j]
            precondition(child.stamp <= stamp, "VersionedDictionary: child newer than parent")
            total += child._invariantCheck(
                shift: shift + Self.bitsPerLevel, prefix: prefix | (slot &<< UInt64(shift)), isRoot: false)
            j += 1
        }
        return total
    }
}
#endif

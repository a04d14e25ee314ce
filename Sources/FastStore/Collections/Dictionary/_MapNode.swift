/// One key-value pair of a ``VersionedDictionary``, with the stamp of its
/// last write (insertion or update), which the diff compares.
@usableFromInline
internal struct _MapEntry<Key: Hashable, Value> {
    @usableFromInline var key: Key
    @usableFromInline var value: Value
    @usableFromInline var written: UInt64

    @inlinable init(key: Key, value: Value, written: UInt64) {
        self.key = key
        self.value = value
        self.written = written
    }
}

/// A node of a ``VersionedDictionary``'s hash array mapped trie.
///
/// Each level consumes 5 bits of the key's hash (`hashValue`, 64 bits, so
/// 13 levels). A node's `dataMap` marks the 32 slots holding an entry,
/// `nodeMap` the slots holding a child; `entries` and `children` are packed
/// in slot order. Below the last level, a collision node holds every entry
/// of one full hash in `entries`, unordered.
///
/// The shape is canonical: a child holding a single entry and no children is
/// folded back into its parent, so one key set has one shape whatever the
/// history. Every write of a node takes a fresh stamp and its parent is
/// written along with it (stamps never decrease toward the root). Shared
/// nodes are copied on write, unique ones written in place.
///
/// NB: `@exclusivity(unchecked)` for the reason given on `_ListNode`.
@usableFromInline
internal final class _MapNode<Key: Hashable, Value> {
    @usableFromInline @exclusivity(unchecked) var stamp: VersionStamp
    @usableFromInline @exclusivity(unchecked) var dataMap: UInt32
    @usableFromInline @exclusivity(unchecked) var nodeMap: UInt32
    @usableFromInline @exclusivity(unchecked) var entries: ContiguousArray<_MapEntry<Key, Value>>
    @usableFromInline @exclusivity(unchecked) var children: ContiguousArray<_MapNode<Key, Value>>

    @inlinable
    init(
        stamp: VersionStamp, dataMap: UInt32 = 0, nodeMap: UInt32 = 0,
        entries: ContiguousArray<_MapEntry<Key, Value>> = [], children: ContiguousArray<_MapNode<Key, Value>> = []
    ) {
        self.stamp = stamp
        self.dataMap = dataMap
        self.nodeMap = nodeMap
        self.entries = entries
        self.children = children
    }

    @inlinable
    func copy(stamp: VersionStamp) -> _MapNode {
        _MapNode(stamp: stamp, dataMap: dataMap, nodeMap: nodeMap, entries: entries, children: children)
    }

    /// Bits of hash consumed per level.
    @inlinable static var bitsPerLevel: Int { 5 }
    /// The shift at which nodes are collision nodes.
    @inlinable static var collisionShift: Int { 65 }

    @inlinable @inline(__always)
    static func isCollision(_ shift: Int) -> Bool { shift >= collisionShift }

    @inlinable @inline(__always)
    static func bit(_ hash: UInt64, _ shift: Int) -> UInt32 {
        1 &<< UInt32(truncatingIfNeeded: (hash &>> UInt64(shift)) & 31)
    }

    @inlinable @inline(__always)
    static func index(_ map: UInt32, _ bit: UInt32) -> Int { (map & (bit &- 1)).nonzeroBitCount }

    @inlinable @inline(__always)
    static func hash(_ key: Key) -> UInt64 { UInt64(bitPattern: Int64(key.hashValue)) }

    @inlinable @inline(__always)
    static func makeUnique(_ node: inout _MapNode, stamp: VersionStamp) {
        if !isKnownUniquelyReferenced(&node) {
            node = node.copy(stamp: stamp)
        } else {
            node.stamp = stamp
        }
    }

    // MARK: Lookup

    /// The entry for `key`, if any.
    ///
    /// - Complexity: O(log₃₂ n) nodes visited.
    @inlinable
    func entry(for key: Key, hash: UInt64, shift: Int = 0) -> _MapEntry<Key, Value>? {
        var node = self
        var shift = shift
        while true {
            if Self.isCollision(shift) {
                return node.entries.first { $0.key == key }
            }
            let bit = Self.bit(hash, shift)
            if node.dataMap & bit != 0 {
                let e = node.entries[Self.index(node.dataMap, bit)]
                return e.key == key ? e : nil
            }
            if node.nodeMap & bit != 0 {
                node = node.children[Self.index(node.nodeMap, bit)]
                shift += Self.bitsPerLevel
                continue
            }
            return nil
        }
    }

    // MARK: Insertion

    /// Sets `value` for `key` below this (unique, stamped) node. Returns the
    /// previous value, or nil when the key was inserted.
    @inlinable
    func update(_ value: Value, for key: Key, hash: UInt64, shift: Int, stamp: VersionStamp) -> Value?? {
        if Self.isCollision(shift) {
            if let i = entries.firstIndex(where: { $0.key == key }) {
                let old = entries[i].value
                entries[i].value = value
                entries[i].written = stamp.rawValue
                return .some(old)
            }
            entries.append(_MapEntry(key: key, value: value, written: stamp.rawValue))
            return .none
        }
        let bit = Self.bit(hash, shift)
        if dataMap & bit != 0 {
            let i = Self.index(dataMap, bit)
            if entries[i].key == key {
                let old = entries[i].value
                entries[i].value = value
                entries[i].written = stamp.rawValue
                return .some(old)
            }
            // Push the existing entry and the new one down into a child.
            let existing = entries.remove(at: i)
            dataMap &= ~bit
            let child = Self.pair(
                existing, hash: Self.hash(existing.key),
                _MapEntry(key: key, value: value, written: stamp.rawValue), hash: hash,
                shift: shift + Self.bitsPerLevel, stamp: stamp)
            nodeMap |= bit
            children.insert(child, at: Self.index(nodeMap, bit))
            return .none
        }
        if nodeMap & bit != 0 {
            let j = Self.index(nodeMap, bit)
            Self.makeUnique(&children[j], stamp: stamp)
            return children[j].update(value, for: key, hash: hash, shift: shift + Self.bitsPerLevel, stamp: stamp)
        }
        dataMap |= bit
        entries.insert(_MapEntry(key: key, value: value, written: stamp.rawValue), at: Self.index(dataMap, bit))
        return .none
    }

    /// A node at `shift` holding two entries with different keys.
    @inlinable
    static func pair(
        _ a: _MapEntry<Key, Value>, hash ha: UInt64, _ b: _MapEntry<Key, Value>, hash hb: UInt64,
        shift: Int, stamp: VersionStamp
    ) -> _MapNode {
        if isCollision(shift) {
            return _MapNode(stamp: stamp, entries: [a, b])
        }
        let bitA = bit(ha, shift), bitB = bit(hb, shift)
        if bitA == bitB {
            let child = pair(a, hash: ha, b, hash: hb, shift: shift + bitsPerLevel, stamp: stamp)
            return _MapNode(stamp: stamp, nodeMap: bitA, children: [child])
        }
        return _MapNode(stamp: stamp, dataMap: bitA | bitB, entries: bitA < bitB ? [a, b] : [b, a])
    }

    // MARK: Removal

    /// Removes `key` below this (unique, stamped) node; returns its value.
    /// Children left with a single entry and no children are folded back.
    @inlinable
    func remove(_ key: Key, hash: UInt64, shift: Int, stamp: VersionStamp) -> Value? {
        if Self.isCollision(shift) {
            guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
            return entries.remove(at: i).value
        }
        let bit = Self.bit(hash, shift)
        if dataMap & bit != 0 {
            let i = Self.index(dataMap, bit)
            guard entries[i].key == key else { return nil }
            dataMap &= ~bit
            return entries.remove(at: i).value
        }
        guard nodeMap & bit != 0 else { return nil }
        let j = Self.index(nodeMap, bit)
        // NB: look before copying, so a miss copies nothing.
        guard children[j].entry(for: key, hash: hash, shift: shift + Self.bitsPerLevel) != nil else { return nil }
        Self.makeUnique(&children[j], stamp: stamp)
        let child = children[j]
        let removed = child.remove(key, hash: hash, shift: shift + Self.bitsPerLevel, stamp: stamp)
        if child.children.isEmpty && child.entries.count <= 1 {
            children.remove(at: j)
            nodeMap &= ~bit
            if let only = child.entries.first {
                dataMap |= bit
                entries.insert(only, at: Self.index(dataMap, bit))
            }
        }
        return removed
    }

    // MARK: Walks

    /// Calls `body` with every entry below this node.
    @inlinable
    func forEachEntry(_ body: (_MapEntry<Key, Value>) throws -> Void) rethrows {
        for e in entries { try body(e) }
        for c in children { try c.forEachEntry(body) }
    }

    /// The number of entries below this node.
    @inlinable
    func countEntries() -> Int {
        children.reduce(entries.count) { $0 + $1.countEntries() }
    }
}

extension _MapNode: @unchecked Sendable where Key: Sendable, Value: Sendable {}

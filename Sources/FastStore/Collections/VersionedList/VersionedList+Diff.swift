// Structural diff of two versions of a list.
//
// Alignment: every element slot carries an identity, taken when the element
// is inserted and kept while it stays in the list, and the stamp of its last
// write. Versions of one list never reorder kept elements (there is no move;
// a sort gives every element a new identity), so the elements two versions
// share appear in the same order in both. The diff walks both trees in
// order, skipping each subtree found at the front of both walks (same node:
// same elements, same identities, same writes). What it cannot skip it
// collects, leaf by leaf, into one buffer per side; at each shared subtree
// (and at the end) the two buffers are matched by identity: identities on
// both sides are kept elements (updated when their write stamps differ),
// the others are removed or inserted. Matching at any shared subtree is
// sound whatever was collected before it, because kept elements keep their
// order: nothing collected before a shared subtree on one side can match
// anything after it on the other.
//
// Which side to take when the fronts differ decides only the cost. A node
// whose stamp is newer than the other version's root stamp was written after
// that whole version, so it is not in it: take (open or collect) that side.
// Otherwise take the side of the older version: the newer one's front is
// then in general a node the older version has too, further on.

extension VersionedList {
    /// The changes that turn `older` into this list: removed offsets (in
    /// `older`), inserted offsets (in this list) and updated offsets (in
    /// both), each sorted ascending.
    ///
    /// For two versions of one list (same ``nodeID``), found by walking only
    /// the nodes the versions do not share and aligning elements by their
    /// identity. For unrelated lists every element of `older` is reported
    /// removed and every element of this list inserted (with `Equatable`
    /// elements, the overload compares elements instead).
    ///
    /// - Complexity: O(c × log n) for c changed leaves when the versions
    ///   share structure (one write among 1,000,000 elements: a few dozen
    ///   nodes visited), O(n) at worst.
    @inlinable
    public func difference(from older: VersionedList) -> VersionedListChanges {
        _Tracking.recordWholeRead(_nodeID)
        _Tracking.recordWholeRead(older._nodeID)
        if older._root === _root { return VersionedListChanges() }
        guard older._nodeID == _nodeID else {
            return VersionedListChanges(removed: Array(0 ..< older._root.count), inserted: Array(0 ..< _root.count))
        }
        return _ListNode.difference(from: older._root, to: _root)
    }
}

extension VersionedList where Element: Equatable {
    /// The changes that turn `older` into this list.
    ///
    /// For two versions of one list (same ``nodeID``), the structural diff
    /// of `difference(from:)` for any element type. For unrelated lists, the elements are
    /// compared (the standard library's `difference(from:)`, a Myers diff):
    /// correct, O(n + d²), with no updates reported.
    @inlinable
    public func difference(from older: VersionedList) -> VersionedListChanges {
        _Tracking.recordWholeRead(_nodeID)
        _Tracking.recordWholeRead(older._nodeID)
        if older._root === _root { return VersionedListChanges() }
        if older._nodeID == _nodeID { return _ListNode.difference(from: older._root, to: _root) }
        return VersionedListChanges(Array(self).difference(from: Array(older)))
    }
}

/// The elements one side of a diff collected since the last shared subtree:
/// in caller-provided inline storage, spilling to the heap past it.
@usableFromInline
internal struct _DiffBuffer {
    @usableFromInline let inline: UnsafeMutableBufferPointer<_DiffEntry>
    @usableFromInline var heap: ContiguousArray<_DiffEntry>
    @usableFromInline var count: Int

    @inlinable init(inline: UnsafeMutableBufferPointer<_DiffEntry>) {
        self.inline = inline
        self.heap = []
        self.count = 0
    }

    @inlinable @inline(__always)
    mutating func append(_ entry: _DiffEntry) {
        if count < inline.count {
            (inline.baseAddress.unsafelyUnwrapped + count).initialize(to: entry)
        } else {
            if count == inline.count { heap.append(contentsOf: inline) }
            heap.append(entry)
        }
        count += 1
    }

    /// Calls `body` with the collected entries.
    @inlinable
    func withEntries<R>(_ body: (UnsafeBufferPointer<_DiffEntry>) -> R) -> R {
        if count <= inline.count {
            return body(UnsafeBufferPointer(start: inline.baseAddress, count: count))
        }
        return heap.withUnsafeBufferPointer(body)
    }

    @inlinable
    mutating func removeAll() {
        count = 0
        heap.removeAll(keepingCapacity: true)
    }
}

/// One element collected by the diff: its slot and its offset in its version.
@usableFromInline
internal struct _DiffEntry {
    @usableFromInline var slot: _ListSlot
    @usableFromInline var offset: Int
    @inlinable init(slot: _ListSlot, offset: Int) {
        self.slot = slot
        self.offset = offset
    }
}

extension _ListNode {
    /// The structural diff from tree `a` (older) to tree `b` (newer) of one
    /// list. See the comment at the top of this file.
    @inlinable
    static func difference(from a: _ListNode, to b: _ListNode) -> VersionedListChanges {
        var visited = 0
        return difference(from: a, to: b, visited: &visited)
    }

    /// The diff, also counting in `visited` the subtrees the walk looked at
    /// (skipped, opened or collected): what its cost follows.
    @inlinable
    static func difference(from a: _ListNode, to b: _ListNode, visited: inout Int) -> VersionedListChanges {
        // NB: the cursors hold nodes unretained; `a` and `b` keep them alive.
        withExtendedLifetime((a, b)) { _difference(from: a, to: b, visited: &visited) }
    }

    @inlinable
    static func _difference(from a: _ListNode, to b: _ListNode, visited: inout Int) -> VersionedListChanges {
        // NB: cursor stacks and the first 64 collected elements of each side
        // live in temporary (stack) storage: a diff of a few writes
        // allocates only its result arrays.
        let inline = leafCapacity
        return withUnsafeTemporaryAllocation(of: _DiffEntry.self, capacity: 2 * inline) { storage in
            let base = storage.baseAddress.unsafelyUnwrapped
            var bufferA = _DiffBuffer(inline: UnsafeMutableBufferPointer(start: base, count: inline))
            var bufferB = _DiffBuffer(inline: UnsafeMutableBufferPointer(start: base + inline, count: inline))
            return _ListCursor.withCursors(a, b) { ca, cb in
                _difference(&ca, &cb, stampA: a.stamp, stampB: b.stamp, &bufferA, &bufferB, visited: &visited)
            }
        }
    }

    @inlinable
    static func _difference(
        _ ca: inout _ListCursor<Element>, _ cb: inout _ListCursor<Element>,
        stampA: VersionStamp, stampB: VersionStamp,
        _ bufferA: inout _DiffBuffer, _ bufferB: inout _DiffBuffer, visited: inout Int
    ) -> VersionedListChanges {
        var changes = VersionedListChanges()
        let olderIsA = stampA <= stampB

        @inline(__always)
        func take(_ cursor: inout _ListCursor<Element>, into buffer: inout _DiffBuffer) {
            if cursor.withFront({ $0.height }) > 0 {
                cursor.descend()
                return
            }
            let base = cursor.offset
            cursor.withFront { leaf in
                leaf.withSlots { slots in
                    for i in 0 ..< slots.count { buffer.append(_DiffEntry(slot: slots[i], offset: base + i)) }
                }
            }
            cursor.advance()
        }

        while true {
            visited &+= 1
            guard let x = ca.front else {
                if cb.front == nil { break }
                take(&cb, into: &bufferB)
                continue
            }
            guard let y = cb.front else {
                take(&ca, into: &bufferA)
                continue
            }
            if x.toOpaque() == y.toOpaque() {
                if bufferA.count > 0 || bufferB.count > 0 {
                    _match(&bufferA, &bufferB, into: &changes)
                }
                ca.advance()
                cb.advance()
                continue
            }
            let xNotInB = ca.withFront { $0.stamp } > stampB
            let yNotInA = cb.withFront { $0.stamp } > stampA
            let takeA = xNotInB != yNotInA ? xNotInB : olderIsA
            if takeA { take(&ca, into: &bufferA) } else { take(&cb, into: &bufferB) }
        }
        if bufferA.count > 0 || bufferB.count > 0 {
            _match(&bufferA, &bufferB, into: &changes)
        }
        return changes
    }

    /// Matches the collected elements of both sides by identity, appends the
    /// resulting changes in ascending order, and empties both buffers.
    @inlinable
    static func _match(
        _ bufferA: inout _DiffBuffer, _ bufferB: inout _DiffBuffer,
        into changes: inout VersionedListChanges
    ) {
        bufferA.withEntries { a in
            bufferB.withEntries { b in _match(a, b, into: &changes) }
        }
        bufferA.removeAll()
        bufferB.removeAll()
    }

    @inlinable
    static func _match(
        _ a: UnsafeBufferPointer<_DiffEntry>, _ b: UnsafeBufferPointer<_DiffEntry>,
        into changes: inout VersionedListChanges
    ) {
        @inline(__always)
        func kept(_ x: _DiffEntry, _ y: _DiffEntry) {
            if x.slot.written != y.slot.written {
                changes.updated.append(y.offset)
                changes.updatedInOlder.append(x.offset)
            }
        }
        // Common prefix and suffix by identity, then the middle by hashing.
        let shorter = Swift.min(a.count, b.count)
        var prefix = 0
        while prefix < shorter, a[prefix].slot.identity == b[prefix].slot.identity {
            kept(a[prefix], b[prefix])
            prefix += 1
        }
        var suffix = 0
        while suffix < shorter - prefix,
              a[a.count - 1 - suffix].slot.identity == b[b.count - 1 - suffix].slot.identity {
            suffix += 1
        }
        let aEnd = a.count - suffix, bEnd = b.count - suffix
        if prefix == aEnd {
            for j in prefix ..< bEnd { changes.inserted.append(b[j].offset) }
        } else if prefix == bEnd {
            for i in prefix ..< aEnd { changes.removed.append(a[i].offset) }
        } else {
            var positionInA: [UInt64: Int] = [:]
            positionInA.reserveCapacity(aEnd - prefix)
            for i in prefix ..< aEnd { positionInA[a[i].slot.identity] = i }
            var matched = [Bool](repeating: false, count: aEnd - prefix)
            for j in prefix ..< bEnd {
                if let i = positionInA[b[j].slot.identity] {
                    matched[i - prefix] = true
                    kept(a[i], b[j])
                } else {
                    changes.inserted.append(b[j].offset)
                }
            }
            for i in prefix ..< aEnd where !matched[i - prefix] { changes.removed.append(a[i].offset) }
        }
        for k in 0 ..< suffix { kept(a[aEnd + k], b[bEnd + k]) }
    }
}

extension VersionedList: Equatable where Element: Equatable {
    /// Whether two lists hold equal elements in the same order. Records a
    /// read of both whole lists.
    ///
    /// Like `Array`'s `==`, which is `true` for two arrays sharing storage
    /// without comparing their elements, an element two versions of a list
    /// share (in a shared node, or in the same slot: not written since the
    /// versions parted) is equal without being compared. So for an element
    /// type whose `==` is not reflexive (a `Double.nan` field), two versions
    /// can be equal where arrays built apart from the same elements are
    /// not; an element written since (even with an equal value) is
    /// compared.
    ///
    /// - Complexity: O(1) for the same version; when the two share nodes
    ///   (versions of one list), O(d × log n) for d differing leaves, since
    ///   shared subtrees are equal without looking inside; O(n) otherwise.
    @inlinable
    public static func == (lhs: VersionedList, rhs: VersionedList) -> Bool {
        _Tracking.recordWholeRead(lhs._nodeID)
        _Tracking.recordWholeRead(rhs._nodeID)
        // NB: the roots are used unretained (a retain and release of each
        // root, otherwise), so `lhs` and `rhs` are kept alive explicitly:
        // inlined into a caller whose operand is a temporary, nothing else
        // would hold its root during the walk.
        return withExtendedLifetime(lhs) {
            withExtendedLifetime(rhs) {
                let a = Unmanaged.passUnretained(lhs._root), b = Unmanaged.passUnretained(rhs._root)
                if a.toOpaque() == b.toOpaque() { return true }
                return a._withUnsafeGuaranteedRef { x in
                    b._withUnsafeGuaranteedRef { y in x.count == y.count && _ListNode.elementsEqual(x, y) }
                }
            }
        }
    }
}

extension _ListNode where Element: Equatable {
    /// Compares two trees of equal counts element by element, skipping
    /// subtrees found at the same offset in both.
    @inlinable
    static func elementsEqual(_ a: _ListNode, _ b: _ListNode) -> Bool {
        // NB: the cursors hold nodes unretained; `a` and `b` keep them alive
        // (the caller holds them).
        if let equal = _sameShapeEqual(a, b) { return equal }
        return _elementsEqual(a, b)
    }

    /// Compares two trees of the same shape, the usual case of two versions
    /// of one list written in place: descends only into the children that
    /// are different nodes. `nil` when the shapes differ at some node it
    /// reached (the caller then walks both trees).
    ///
    /// Children at the same position of two branches are compared
    /// pairwise, in order: as long as every pair before held as many
    /// elements, they start at the same position of the list. A shared
    /// child is equal without looking inside (a node two versions share is
    /// never written in place), and so is an element of the same slot in
    /// two leaves (never written since they parted).
    ///
    /// NB: finding the written child this way costs a pointer comparison
    /// per child, where the cursor walk pays a step of its stack per child.
    ///
    /// - Complexity: O(d × log n) for d differing leaves.
    @inlinable
    static func _sameShapeEqual(_ a: _ListNode, _ b: _ListNode) -> Bool? {
        if a === b { return true }
        let n = a.width
        guard a.height == b.height, a.count == b.count, n == b.width else { return nil }
        // NB: raw pointers into the nodes, which the caller keeps alive: a
        // lane (`elements`, `counts`) holds its node, a retain and release
        // each.
        if a.height == 0 {
            let xs = a._elementsPointer, ys = b._elementsPointer
            if !_isPOD(Element.self) {
                // NB: an element whose slot is the same in both (the same
                // identity and the same last write: stamps never repeat)
                // is the same value, as a shared node is: only elements
                // written apart are compared. What the diff relies on too.
                if a._hasExplicitSlots && b._hasExplicitSlots {
                    let sx = a._slotsPointer, sy = b._slotsPointer
                    for i in 0 ..< n where sx[i] != sy[i] && xs[i] != ys[i] { return false }
                    return true
                }
                if !a._hasExplicitSlots && !b._hasExplicitSlots && a.slotBase == b.slotBase {
                    // Two implicit leaves of one build: their slots differ
                    // at most where either had its one element written.
                    let i = Int(a._header.pointee.writtenIndex), j = Int(b._header.pointee.writtenIndex)
                    if i >= 0 && a.slot(i) != b.slot(i) && xs[i] != ys[i] { return false }
                    if j >= 0 && j != i && a.slot(j) != b.slot(j) && xs[j] != ys[j] { return false }
                    return true
                }
                for i in 0 ..< n where a.slot(i) != b.slot(i) && xs[i] != ys[i] { return false }
                return true
            }
            for i in 0 ..< n where xs[i] != ys[i] { return false }
            return true
        }
        // NB: the children's counts are not compared here: a child both
        // share has one count, and the recursion returns nil for two
        // children of different counts. Children are visited in order, so
        // every pair visited starts at the same position of both lists.
        // The children are read unretained.
        typealias Ref = Unmanaged<_ListNode>
        let xs = UnsafeRawPointer(a._childrenPointer).assumingMemoryBound(to: Ref.self)
        let ys = UnsafeRawPointer(b._childrenPointer).assumingMemoryBound(to: Ref.self)
        for k in 0 ..< n where xs[k].toOpaque() != ys[k].toOpaque() {
            let equal = xs[k]._withUnsafeGuaranteedRef { x in
                ys[k]._withUnsafeGuaranteedRef { y in _sameShapeEqual(x, y) }
            }
            guard let equal else { return nil }
            if !equal { return false }
        }
        return true
    }

    @inlinable
    static func _elementsEqual(_ a: _ListNode, _ b: _ListNode) -> Bool {
        _ListCursor.withCursors(a, b) { ca, cb in _elementsEqual(&ca, &cb) }
    }

    @inlinable
    static func _elementsEqual(_ ca: inout _ListCursor<Element>, _ cb: inout _ListCursor<Element>) -> Bool {
        while let x = ca.front, let y = cb.front {
            if x.toOpaque() == y.toOpaque(), ca.inLeaf == 0, cb.inLeaf == 0 {
                ca.advance()
                cb.advance()
                continue
            }
            let hx = ca.withFront { $0.height }, hy = cb.withFront { $0.height }
            if hx > 0 || hy > 0 {
                if hx >= hy { ca.descend() }
                if hy >= hx { cb.descend() }
                continue
            }
            let (i0, j0) = (ca.inLeaf, cb.inLeaf)
            let (n, equal) = ca.withFront { xl in
                cb.withFront { yl in
                    let n = Swift.min(xl.count - i0, yl.count - j0)
                    let equal = xl.elements.withUnsafeBufferPointer { xs in
                        yl.elements.withUnsafeBufferPointer { ys in
                            var i = i0, j = j0
                            for _ in 0 ..< n {
                                if xs[i] != ys[j] { return false }
                                i += 1
                                j += 1
                            }
                            return true
                        }
                    }
                    return (n, equal)
                }
            }
            if !equal { return false }
            ca.inLeaf += n
            cb.inLeaf += n
            if ca.inLeaf == ca.withFront({ $0.count }) { ca.advance() }
            if cb.inLeaf == cb.withFront({ $0.count }) { cb.advance() }
        }
        return ca.front == nil && cb.front == nil
    }
}

extension VersionedList: Hashable where Element: Hashable {
    /// Hashes the count and every element. Records a read of the whole list.
    ///
    /// - Complexity: O(n).
    @inlinable
    public func hash(into hasher: inout Hasher) {
        _Tracking.recordWholeRead(_nodeID)
        hasher.combine(_root.count)
        _root.forEachLeaf { leaf in
            for element in leaf.elements { hasher.combine(element) }
        }
    }
}

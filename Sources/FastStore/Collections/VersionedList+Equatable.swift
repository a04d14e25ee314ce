extension VersionedList: Equatable where Element: Equatable {
    /// Whether two lists hold equal elements in the same order. Records a
    /// read of both whole lists.
    ///
    /// - Complexity: O(1) for the same version; when the two share nodes
    ///   (versions of one list), O(d × log n) for d differing leaves, since
    ///   shared subtrees are equal without looking inside; O(n) otherwise.
    @inlinable
    public static func == (lhs: VersionedList, rhs: VersionedList) -> Bool {
        _Tracking.recordWholeRead(lhs._nodeID)
        _Tracking.recordWholeRead(rhs._nodeID)
        if lhs._root === rhs._root { return true }
        if lhs._root.count != rhs._root.count { return false }
        return _ListNode.elementsEqual(lhs._root, rhs._root)
    }
}

extension _ListNode where Element: Equatable {
    /// Compares two trees of equal counts element by element, skipping
    /// subtrees found at the same offset in both.
    @inlinable
    static func elementsEqual(_ a: _ListNode, _ b: _ListNode) -> Bool {
        // NB: the cursors hold nodes unretained; `a` and `b` keep them alive.
        withExtendedLifetime((a, b)) { _elementsEqual(a, b) }
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

extension VersionedList: Equatable where Element: Equatable {
    /// Whether two lists hold equal elements in the same order. Records a
    /// read of both whole lists.
    ///
    /// - Complexity: O(1) for the same version; when the two share nodes
    ///   (versions of one list), O(d × log n) for d differing leaves, since
    ///   shared subtrees are equal without looking inside; O(n) otherwise.
    @inlinable
    public static func == (lhs: VersionedList, rhs: VersionedList) -> Bool {
        _recordWholeRead(lhs._nodeID)
        _recordWholeRead(rhs._nodeID)
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
        var ca = _ListCursor(root: a)
        var cb = _ListCursor(root: b)
        while let x = ca.front, let y = cb.front {
            if x === y, ca.inLeaf == 0, cb.inLeaf == 0 {
                ca.advance()
                cb.advance()
                continue
            }
            if x.height > 0 || y.height > 0 {
                let hx = x.height, hy = y.height
                if hx >= hy { ca.descend() }
                if hy >= hx { cb.descend() }
                continue
            }
            let n = Swift.min(x.count - ca.inLeaf, y.count - cb.inLeaf)
            let equal = x.elements.withUnsafeBufferPointer { xs in
                y.elements.withUnsafeBufferPointer { ys in
                    var i = ca.inLeaf, j = cb.inLeaf
                    for _ in 0 ..< n {
                        if xs[i] != ys[j] { return false }
                        i += 1
                        j += 1
                    }
                    return true
                }
            }
            if !equal { return false }
            ca.inLeaf += n
            cb.inLeaf += n
            if ca.inLeaf == x.count { ca.advance() }
            if cb.inLeaf == y.count { cb.advance() }
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
        _recordWholeRead(_nodeID)
        hasher.combine(_root.count)
        _root.forEachLeaf { leaf in
            for element in leaf.elements { hasher.combine(element) }
        }
    }
}

extension VersionedList: RandomAccessCollection, MutableCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>
    public typealias SubSequence = Slice<VersionedList<Element>>

    /// Always 0.
    @inlinable public var startIndex: Int { 0 }

    /// The element count. Records a read of the list's structure (its
    /// count: a write of an element's value in place does not change it).
    ///
    /// - Complexity: O(1).
    @inlinable public var endIndex: Int {
        _Tracking.recordStructureRead(_nodeID)
        return _root.count
    }

    /// The number of elements. Records a read of the list's structure (a
    /// write of an element's value in place does not change it).
    ///
    /// - Complexity: O(1).
    @inlinable public var count: Int {
        _Tracking.recordStructureRead(_nodeID)
        return _root.count
    }

    /// Whether the list is empty. Records a read of the list's structure.
    @inlinable public var isEmpty: Bool {
        _Tracking.recordStructureRead(_nodeID)
        return _root.count == 0
    }

    /// The element count. Records a read of the list's structure.
    @inlinable public var underestimatedCount: Int {
        _Tracking.recordStructureRead(_nodeID)
        return _root.count
    }

    @inlinable public func index(after i: Int) -> Int { i + 1 }
    @inlinable public func index(before i: Int) -> Int { i - 1 }
    @inlinable public func index(_ i: Int, offsetBy distance: Int) -> Int { i + distance }
    @inlinable public func distance(from start: Int, to end: Int) -> Int { end - start }

    /// An iterator over the elements, leaf by leaf. Records a read of the
    /// whole list (once, not per element).
    ///
    /// NB: always inlined, with `Iterator.init`, so that the caller's
    /// optimizer sees the iterator start before its first leaf (see
    /// `Iterator`). Left to its judgment, the optimizer inlined this only
    /// where the `for-in` sat inside another loop (as in a benchmark);
    /// elsewhere the iterator came back from a call and the loop stayed
    /// scalar.
    ///
    /// - Complexity: O(1) per element, amortized.
    @inlinable @inline(__always)
    public func makeIterator() -> Iterator {
        _Tracking.recordWholeRead(_nodeID)
        return Iterator(root: _root)
    }

    /// Calls `body` with each element in order, leaf by leaf. Records a read
    /// of the whole list (once).
    ///
    /// NB: the loop over each leaf is a plain loop over contiguous storage,
    /// which the optimizer can vectorize once `body` is inlined (`for-in`
    /// reaches the same shape when the optimizer splits the iterator's
    /// pointer-pair loop at leaf boundaries).
    ///
    /// - Complexity: O(n).
    @inlinable
    public func forEach(_ body: (Element) throws -> Void) rethrows {
        _Tracking.recordWholeRead(_nodeID)
        if _root.height == 0 {
            try _root.elements.withUnsafeBufferPointer { elements in
                for element in elements { try body(element) }
            }
            return
        }
        // NB: walks the branches just above the leaves and loops over their
        // leaves inline, so moving to the next leaf is a step in a buffer.
        let walk = _LeafWalk(root: _root, height: 1)
        var branch: Unmanaged<_ListNode<Element>>? = walk.first
        while let current = branch {
            try current._withUnsafeGuaranteedRef { node in
                try node.children.withUnsafeBufferPointer { leaves in
                    for leaf in leaves {
                        try leaf.elements.withUnsafeBufferPointer { elements in
                            for element in elements { try body(element) }
                        }
                    }
                }
            }
            branch = walk.nextLeaf()
        }
    }

    /// Copies the elements into `buffer` leaf by leaf (used by `Array(list)`).
    @inlinable
    public func _copyContents(
        initializing buffer: UnsafeMutableBufferPointer<Element>
    ) -> (Iterator, UnsafeMutableBufferPointer<Element>.Index) {
        _Tracking.recordWholeRead(_nodeID)
        let n = Swift.min(buffer.count, _root.count)
        guard n > 0, var target = buffer.baseAddress else { return (Iterator(root: _root), 0) }
        var remaining = n
        var iterator = Iterator(root: _root)
        // NB: whole leaves are copied as blocks; the iterator is positioned
        // after the copied prefix by skipping the leaves it passed.
        _root.forEachLeafWhile { leaf in
            let k = Swift.min(remaining, leaf.count)
            leaf.elements.withUnsafeBufferPointer { source in
                target.initialize(from: source.baseAddress!, count: k)
            }
            target += k
            remaining -= k
            return remaining > 0
        }
        iterator._skip(n)
        return (iterator, n)
    }

    /// An iterator over a list's elements, leaf by leaf.
    public struct Iterator: IteratorProtocol {
        @usableFromInline typealias Ref = Unmanaged<_ListNode<Element>>

        /// The next element of the current leaf (equal to `_end` once the
        /// leaf is consumed; both nil before the first leaf).
        ///
        /// NB: read without a bounds check or any retain per element or per
        /// leaf. The buffers stay valid: the walk holds the root, so every
        /// node of this version stays alive and, being shared, is never
        /// written in place. A pointer pair rather than base + index: the
        /// caller's loop is then one load, one add, one compare per element.
        ///
        /// NB: the optimizer splits the caller's `for-in` loop at leaf
        /// boundaries and vectorizes the per-leaf loop only when it can
        /// count that loop's iterations, that is, when every way into it
        /// sets `_end` to `_cursor` plus a whole number of elements right
        /// there. So the iterator starts before its first leaf (a pair of
        /// nils, which the inlined `init` makes visible as such) and enters
        /// every leaf, the first one too, through `_advanceLeaf()` inside
        /// the caller's loop. A first leaf entered in `init` reaches the
        /// loop from outside it (from memory, where `makeIterator()` was not
        /// inlined, as in a plain client function) and kept it scalar: 2.5x
        /// to 3.3x `Array`, against 1.3x to 1.5x now (measured by
        /// `scripts/iteration-crossmodule.sh`).
        @usableFromInline var _cursor: UnsafePointer<Element>?
        /// The end of the current leaf's elements.
        @usableFromInline var _end: UnsafePointer<Element>?
        /// The leaves of the current branch just above the leaves (nil when
        /// the root is a leaf), read as unretained references.
        @usableFromInline var _leaves: UnsafePointer<Ref>?
        /// The current leaf's index in `_leaves`, or in a root leaf 0; -1
        /// before the first leaf.
        @usableFromInline var _leafIndex: Int
        @usableFromInline var _leafCount: Int
        /// Finds the following branches just above the leaves (and holds the
        /// root).
        ///
        /// NB: a class, so that moving on does not take the iterator
        /// `inout`: the per-element state can then stay in registers in the
        /// caller's loop.
        @usableFromInline let _walk: _LeafWalk<Element>

        /// An iterator before the first leaf (see `_cursor`).
        @inlinable @inline(__always)
        init(root: _ListNode<Element>) {
            _walk = _LeafWalk(root: root, height: Swift.min(1, root.height))
            _cursor = nil
            _end = nil
            _leaves = nil
            _leafIndex = -1
            _leafCount = 0
            if root.height > 0 {
                (_leaves, _leafCount) = Self._leaves(of: _walk.first)
            }
        }

        /// Makes `leaf` the current leaf, positioned at its start.
        @inlinable @inline(__always)
        mutating func _enter(_ leaf: Ref) {
            (_cursor, _end) = leaf._withUnsafeGuaranteedRef { node in
                node.elements.withUnsafeBufferPointer { buffer in
                    (buffer.baseAddress, buffer.baseAddress.map { $0 + buffer.count })
                }
            }
        }

        /// The children of `branch` (of height 1), read as unretained
        /// references, and their count.
        @inlinable @inline(__always)
        static func _leaves(of branch: Ref) -> (UnsafePointer<Ref>?, Int) {
            branch._withUnsafeGuaranteedRef { node in
                node.children.withUnsafeBufferPointer { children in
                    (UnsafeRawPointer(children.baseAddress).map { $0.assumingMemoryBound(to: Ref.self) },
                     children.count)
                }
            }
        }

        /// Makes `branch` (of height 1) the current branch and its first
        /// leaf the current leaf.
        @inlinable @inline(__always)
        mutating func _enterBranch(_ branch: Ref) {
            (_leaves, _leafCount) = Self._leaves(of: branch)
            _leafIndex = 0
            _enter(_leaves.unsafelyUnwrapped[0])
        }

        /// NB: one read for both paths (no first element of a leaf read
        /// apart): the per-leaf loop then covers the whole leaf, 64
        /// elements, a multiple of the vector width, with no scalar rest.
        @inlinable @inline(__always)
        public mutating func next() -> Element? {
            if _cursor == _end {
                guard _advanceLeaf() else { return nil }
            }
            let cursor = _cursor.unsafelyUnwrapped
            _cursor = cursor + 1
            return cursor.pointee
        }

        /// Moves to the next (non-empty) leaf; false at the end.
        @inlinable @inline(__always)
        mutating func _advanceLeaf() -> Bool {
            guard let leaves = _leaves else {
                // A root leaf, entered once (it may be empty; the leaves of
                // a branch never are).
                guard _leafIndex < 0 else { return false }
                _leafIndex = 0
                _enter(_walk.first)
                return _cursor != _end
            }
            _leafIndex &+= 1
            if _leafIndex < _leafCount {
                _enter(leaves[_leafIndex])
                return true
            }
            guard let branch = _walk.nextLeaf() else {
                _leaves = nil
                return false
            }
            _enterBranch(branch)
            return true
        }

        /// Skips `n` elements.
        @inlinable
        mutating func _skip(_ n: Int) {
            var n = n
            while n > 0 {
                let available = _cursor.map { _end.unsafelyUnwrapped - $0 } ?? 0
                if n < available {
                    _cursor = _cursor.unsafelyUnwrapped + n
                    return
                }
                n -= available
                _cursor = _end
                if n > 0, !_advanceLeaf() { return }
            }
        }
    }
}
